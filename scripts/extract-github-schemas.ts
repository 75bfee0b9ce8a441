// Extracts from GitHub's OpenAPI description only the response schemas of the operations the fake
// GitHub implements (test/support/fake-github/), with every schema they reference bundled under
// $defs, into a small committed fixture. The full description (@octokit/openapi, ~385 MB) is never a
// dependency of the project: install it elsewhere and point this script at it. SPEC E4, J1–J2 (tests).
//
//   mkdir -p /tmp/oa && cd /tmp/oa && npm init -y && npm i @octokit/openapi
//   npx tsx scripts/extract-github-schemas.ts /tmp/oa/node_modules/@octokit/openapi
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FAKE_OPERATIONS } from '../test/support/fake-github/operations.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

/** Schema keywords that only document; dropped to keep the fixture small. */
const DOC_KEYWORDS = new Set([
  'description',
  'example',
  'examples',
  'externalDocs',
  'title',
  'discriminator',
  'deprecated',
]);
const SCHEMA_REF = '#/components/schemas/';

/**
 * Where GitHub's answers are known to differ from its description, the fixture follows GitHub (each
 * correction is listed in the fixture, so the fake is never lenient silently).
 */
const CORRECTIONS: ReadonlyArray<{ schema: string; path: string[]; why: string; apply(node: JsonObject): JsonObject }> =
  [
    {
      schema: 'pull-request',
      path: ['properties', 'head', 'properties', 'repo'],
      why: 'head.repo is null when the head fork was deleted',
      apply: (node) => ({ anyOf: [node, { type: 'null' }] }),
    },
    {
      schema: 'check-run',
      path: ['properties', 'conclusion'],
      why: 'GitHub itself sets the conclusion "stale" (REST docs list it; the enum does not)',
      apply: (node) => ({ ...node, enum: [...(node.enum as Json[]), 'stale'] }),
    },
  ];

export interface Extracted {
  source: string;
  corrections: string[];
  /** "METHOD /path/template STATUS" → JSON schema of the body (refs point into $defs). */
  responses: Record<string, JsonObject>;
  $defs: Record<string, JsonObject>;
}

export function extract(description: JsonObject, source: string): Extracted {
  const paths = description.paths as Record<string, Record<string, JsonObject>>;
  const components = description.components as Record<string, Record<string, JsonObject>>;
  const schemas = components.schemas ?? {};
  const sharedResponses = components.responses ?? {};
  const needed = new Set<string>();
  const responses: Record<string, JsonObject> = {};

  for (const operation of FAKE_OPERATIONS) {
    const [method, path] = operation.split(' ') as [string, string];
    const op = paths[path]?.[method.toLowerCase()];
    if (op === undefined) throw new Error(`${operation} is not in the description`);
    for (const [status, raw] of Object.entries(op.responses as Record<string, JsonObject>)) {
      const response =
        typeof raw.$ref === 'string' ? sharedResponses[raw.$ref.replace('#/components/responses/', '')] : raw;
      const content = response?.content as Record<string, JsonObject> | undefined;
      const schema = content?.['application/json']?.schema;
      if (schema === undefined || schema === null || typeof schema !== 'object' || Array.isArray(schema)) continue;
      responses[`${operation} ${status}`] = cleanSchema(schema, needed);
    }
  }

  const $defs: Record<string, JsonObject> = {};
  const pending = [...needed];
  while (pending.length > 0) {
    const name = pending.pop()!;
    if (name in $defs) continue;
    const schema = schemas[name];
    if (schema === undefined) throw new Error(`missing component schema ${name}`);
    const found = new Set<string>();
    $defs[name] = cleanSchema(schema, found);
    for (const more of found) if (!(more in $defs)) pending.push(more);
  }
  for (const fix of CORRECTIONS) {
    const parent = fix.path
      .slice(0, -1)
      .reduce<Json | undefined>(
        (node, key) => (isObject(node ?? null) ? (node as JsonObject)[key] : undefined),
        $defs[fix.schema],
      );
    const last = fix.path.at(-1)!;
    if (!isObject(parent ?? null) || !isObject((parent as JsonObject)[last] ?? null))
      throw new Error(`correction no longer applies: ${fix.schema} ${fix.path.join('/')}`);
    (parent as JsonObject)[last] = fix.apply((parent as JsonObject)[last] as JsonObject);
  }
  return {
    source,
    corrections: CORRECTIONS.map((fix) => `${fix.schema} ${fix.path.join('/')}: ${fix.why}`),
    responses,
    $defs: Object.fromEntries(Object.entries($defs).sort(([a], [b]) => a.localeCompare(b))),
  };
}

/**
 * Copies a schema without documentation keywords, rewriting component refs to #/$defs/NAME. GitHub
 * writes OpenAPI 3.0 `nullable: true` next to `enum`s that lack null and means null is allowed; ajv
 * reads the enum strictly, so null is added to such enums; a `nullable` without a `type` becomes an
 * explicit anyOf with null.
 */
function cleanSchema(schema: JsonObject, refs: Set<string>): JsonObject {
  const out: JsonObject = {};
  if (schema.nullable === true && Array.isArray(schema.enum) && !schema.enum.includes(null))
    out.enum = [...schema.enum, null];
  for (const [key, value] of Object.entries(schema)) {
    if (DOC_KEYWORDS.has(key) || key.startsWith('x-') || (key === 'enum' && out.enum !== undefined)) continue;
    if (key === '$ref' && typeof value === 'string') {
      if (!value.startsWith(SCHEMA_REF)) throw new Error(`unexpected $ref ${value}`);
      const name = value.slice(SCHEMA_REF.length);
      refs.add(name);
      out.$ref = `#/$defs/${name}`;
    } else if (key === 'properties' || key === 'patternProperties') {
      out[key] = Object.fromEntries(
        Object.entries(value as JsonObject).map(([name, sub]) => [name, cleanSchema(sub as JsonObject, refs)]),
      );
    } else if ((key === 'allOf' || key === 'anyOf' || key === 'oneOf') && Array.isArray(value)) {
      out[key] = value.map((sub) => cleanSchema(sub as JsonObject, refs));
    } else if ((key === 'items' || key === 'not' || key === 'additionalProperties') && isObject(value)) {
      out[key] = cleanSchema(value, refs);
    } else {
      out[key] = value;
    }
  }
  // `nullable` is a modifier of `type` for ajv; without a type (e.g. nullable anyOf) say it plainly.
  if (out.nullable === true && out.type === undefined) {
    delete out.nullable;
    return { anyOf: [out, { type: 'null' }] };
  }
  return out;
}

function isObject(value: Json): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function main(argv: string[]): void {
  const packageDir = resolve(argv[0] ?? '/tmp/oa/node_modules/@octokit/openapi');
  const version = (JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as { version: string }).version;
  const description = JSON.parse(
    readFileSync(join(packageDir, 'generated', 'api.github.com.json'), 'utf8'),
  ) as JsonObject;
  const extracted = extract(description, `@octokit/openapi@${version} generated/api.github.com.json`);
  const target = fileURLToPath(new URL('../test/fixtures/github-openapi/responses.json', import.meta.url));
  const text = `${JSON.stringify(extracted, null, 1)}\n`;
  writeFileSync(target, text);
  console.log(
    `${Object.keys(extracted.responses).length} responses, ${Object.keys(extracted.$defs).length} schemas, ${text.length} bytes → ${target}`,
  );
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url))
  main(process.argv.slice(2));
