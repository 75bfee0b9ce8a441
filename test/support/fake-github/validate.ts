// Checks each JSON answer of the fake GitHub against the response schema GitHub's OpenAPI description
// gives for that operation and status (test/fixtures/github-openapi/responses.json, extracted by
// scripts/extract-github-schemas.ts), so the fake cannot drift from the real shape unnoticed.
// OpenAPI 3.0 schemas (with `nullable`) compiled by ajv; formats are not checked.
import { readFileSync } from 'node:fs';
import { Ajv, type ValidateFunction } from 'ajv';

const FIXTURE = new URL('../../fixtures/github-openapi/responses.json', import.meta.url);
const DEFS_ID = 'https://fake-github.test/github-openapi.json';

interface Fixture {
  source: string;
  responses: Record<string, object>;
  $defs: Record<string, object>;
}

export interface Violation {
  /** "METHOD /path/template STATUS" */
  key: string;
  errors: string[];
}

export interface ResponseValidator {
  /** The operations × statuses the fixture describes. */
  readonly keys: ReadonlySet<string>;
  /** null when the body conforms; otherwise what is wrong. 2xx answers without a schema are violations. */
  check(operation: string, status: number, body: unknown): Violation | null;
}

export function loadResponseValidator(): ResponseValidator {
  const fixture = JSON.parse(readFileSync(FIXTURE, 'utf8')) as Fixture;
  const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false, discriminator: false });
  // Every fixture ref is "#/$defs/NAME": one document holds the shared definitions and, as further
  // entries, the response schemas, so refs resolve within it.
  const responseDefs = Object.fromEntries(
    Object.values(fixture.responses).map((schema, i) => [`response-${i}`, schema]),
  );
  ajv.addSchema({ $id: DEFS_ID, $defs: { ...fixture.$defs, ...responseDefs } });
  const names = new Map(Object.keys(fixture.responses).map((key, i) => [key, `response-${i}`]));
  const compiled = new Map<string, ValidateFunction>();

  return {
    keys: new Set(names.keys()),
    check(operation, status, body) {
      const key = `${operation} ${status}`;
      const name = names.get(key);
      if (name === undefined) {
        return status >= 200 && status < 300
          ? { key, errors: ['GitHub describes no JSON body for this answer'] }
          : null;
      }
      let validate = compiled.get(key);
      if (validate === undefined) {
        validate = ajv.getSchema(`${DEFS_ID}#/$defs/${name}`);
        if (validate === undefined) throw new Error(`no compiled schema for ${key}`);
        compiled.set(key, validate);
      }
      if (validate(body)) return null;
      return {
        key,
        errors: (validate.errors ?? []).map(
          (e) => `${e.instancePath || '(root)'} ${e.message ?? e.keyword} ${JSON.stringify(e.params)}`,
        ),
      };
    },
  };
}
