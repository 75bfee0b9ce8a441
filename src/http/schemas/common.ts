// The pieces every answer schema of the JSON API is made of (decision 0058), and the type check that
// keeps a schema beside the view type it describes: a field the view gains and the schema lacks, or
// a type they disagree on, fails `tsc`, so the document cannot drift from what a handler returns.
import { z } from 'zod';

export const id = z.int().min(1);
export const nullableId = id.nullable();
export const timestamp = z.iso.datetime({ offset: true }).describe('ISO-8601 UTC timestamp.');
export const nullableTimestamp = z.iso.datetime({ offset: true }).nullable();
export const sha = z.string().nullable().describe('A commit SHA, or null when none is known.');
export const count = z.int().min(0);

/** `a`, `b`, … for a description. */
export const codeList = (xs: readonly string[]) => xs.map((x) => `\`${x}\``).join(', ');

export const problem = z
  .object({
    error: z.string().describe('A stable, machine-readable code (e.g. `invalid_body`, `not_found`, `unauthorized`).'),
    message: z.string().describe('A human-readable explanation.'),
  })
  .describe('An error answer.');

/**
 * True when every value of `T` parses as `S` and `T` has no field `S` does not document; the view
 * types are the handlers' own, so this is checked against the code, not a copy of it.
 */
export type Describes<S extends z.ZodType, T> = [T] extends [z.output<S>]
  ? [Exclude<keyof T, keyof z.output<S>>] extends [never]
    ? true
    : false
  : false;

/** Compile-time only: `describes<typeof schema, ViewType>(true)` fails `tsc` when they disagree. */
export function describes<S extends z.ZodType, T>(_ok: Describes<S, T>): void {}
