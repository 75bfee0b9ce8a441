// The OpenAPI 3.1 description of fixloop's HTTP surface (SPEC M2, A1), generated (issue 34, decision
// 0058): every route is declared once in api-routes.ts with the zod schemas it reads and answers, and
// this module turns those declarations into the document with zod's own `z.toJSONSchema` — requests as
// a caller sends them (io: input), answers as the server writes them (io: output). Nothing here
// restates a schema; what it decides is the document's frame: info, tags, shared answers, security.
import { z } from 'zod';
import { ROUTES, type RouteDeclaration } from './api-routes.js';
import type { ParameterDeclaration, ResponseDeclaration, SharedParameter } from './routes/route.js';
import { RESPONSE_COMPONENTS } from './schemas/components.js';
import { id } from './schemas/common.js';
import type {
  OpenApiDocument,
  OperationObject,
  ParameterObject,
  PathItemObject,
  RefObject,
  ResponseObject,
  SchemaObject,
} from './openapi-types.js';

export type * from './openapi-types.js';

type Io = 'input' | 'output';

const COMPONENT = '#/components/schemas/';
/** The ids under which schemas written in place pass through zod's registry conversion, then are taken out. */
const IN_PLACE = '__in_place_';

const json = (schema: SchemaObject) => ({ 'application/json': { schema } });
const schemaRef = (name: string): SchemaObject => ({ $ref: `${COMPONENT}${name}` });

/**
 * Tidies zod's output into the document's words: an answer's plain `z.object` stays open to new fields
 * (only a strict object is closed), an object taken as it comes is just an object, a timestamp is `format: date-time` without zod's long pattern, and
 * an integer carries no ±2^53 bound of its own.
 */
function tidy(io: Io) {
  return (ctx: { zodSchema: z.core.$ZodTypes; jsonSchema: z.core.JSONSchema.BaseSchema }) => {
    const def = ctx.zodSchema._zod.def as { type: string; catchall?: unknown };
    const js = ctx.jsonSchema;
    if (io === 'output' && def.type === 'object' && def.catchall === undefined) delete js.additionalProperties;
    // A payload taken as it comes is `{ type: object }`, not zod's empty `properties` and `additionalProperties`.
    if (js.properties && Object.keys(js.properties).length === 0 && !js.required) delete js.properties;
    if (isEmpty(js.additionalProperties)) delete js.additionalProperties;
    if (js.format === 'date-time') delete js.pattern;
    if (js.maximum === Number.MAX_SAFE_INTEGER) delete js.maximum;
    if (js.minimum === Number.MIN_SAFE_INTEGER) delete js.minimum;
  };
}

const isEmpty = (x: unknown) => typeof x === 'object' && x !== null && Object.keys(x).length === 0;

/** One schema on its own, without its `$schema`: a parameter's or a header's. */
function standalone(schema: z.ZodType): SchemaObject {
  const { $schema: _d, ...rest } = z.toJSONSchema(schema, {
    io: 'input',
    unrepresentable: 'any',
    override: tidy('input'),
  });
  return rest as SchemaObject;
}

/**
 * The named schemas and those written in place, converted in one pass so a named one is a `$ref`
 * wherever it appears; `alias` names schemas of the other pass (a request body also answered).
 */
function convert(
  io: Io,
  named: ReadonlyMap<string, z.ZodType>,
  inPlace: readonly z.ZodType[],
  alias: ReadonlyMap<z.ZodType, string>,
) {
  const registry = z.registry<{ id: string }>();
  for (const [name, schema] of named) registry.add(schema, { id: name });
  inPlace.forEach((schema, i) => {
    if (!registry.has(schema) && !alias.has(schema)) registry.add(schema, { id: `${IN_PLACE}${i}` });
  });
  const { schemas } = z.toJSONSchema(registry, {
    io,
    unrepresentable: 'any',
    uri: (name) => `${COMPONENT}${name}`,
    override: tidy(io),
  });
  const strip = (s: z.core.JSONSchema.BaseSchema): SchemaObject => {
    const { $schema: _d, $id: _i, ...rest } = s;
    return rest as SchemaObject;
  };
  const components: Record<string, SchemaObject> = {};
  for (const name of named.keys()) components[name] = strip(schemas[name]!);
  const inPlaceOf = (schema: z.ZodType): SchemaObject => {
    const name = registry.get(schema)?.id ?? alias.get(schema)!;
    return name.startsWith(IN_PLACE) ? strip(schemas[name]!) : schemaRef(name);
  };
  return { components, inPlaceOf };
}

const PATH_PARAMETERS: Record<SharedParameter, ParameterObject> = {
  TaskId: { name: 'id', in: 'path', required: true, description: 'The Task id.', schema: standalone(id) },
  RunId: { name: 'id', in: 'path', required: true, description: 'The run id.', schema: standalone(id) },
};

function parameter(p: ParameterDeclaration | SharedParameter): ParameterObject | RefObject {
  if (typeof p === 'string') return { $ref: `#/components/parameters/${p}` };
  return { ...p, schema: standalone(p.schema) };
}

/** The query string's fields as query parameters; a field that names a path parameter is that, not a query. */
function queryParameters(route: RouteDeclaration, schema: SchemaObject): ParameterObject[] {
  const required = new Set(schema.required ?? []);
  const inPath = new Set([...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]));
  return Object.entries(schema.properties ?? {})
    .filter(([name]) => !inPath.has(name))
    .map(([name, field]) => {
      const { description, ...rest } = field;
      return {
        name,
        in: 'query',
        required: required.has(name),
        ...(description ? { description } : {}),
        schema: rest,
      } as ParameterObject;
    });
}

function build(routes: readonly RouteDeclaration[]): OpenApiDocument {
  // Requests: the named bodies are components; queries and unnamed bodies are written in place.
  const requestNamed = new Map<string, z.ZodType>();
  for (const r of routes) if (r.body?.name) requestNamed.set(r.body.name, r.body.schema);
  const requestInPlace = routes.flatMap((r) => [
    ...(r.query ? [r.query] : []),
    ...(r.body && !r.body.name ? [r.body.schema] : []),
  ]);
  const requests = convert('input', requestNamed, requestInPlace, new Map());
  // Answers: a body that is a request component (the stop flag) refers to it.
  const asRequest = new Map([...requestNamed].map(([name, schema]) => [schema, name] as const));
  const answers = routes.flatMap((r) =>
    Object.values(r.responses).flatMap((a) => (typeof a === 'object' && a.body ? [a.body] : [])),
  );
  const responses = convert('output', new Map(Object.entries(RESPONSE_COMPONENTS)), answers, asRequest);

  const answer = (a: ResponseDeclaration | string): ResponseObject | RefObject => {
    if (typeof a === 'string') return { $ref: `#/components/responses/${a}` };
    return {
      description: a.description,
      ...(a.headers
        ? {
            headers: Object.fromEntries(
              Object.entries(a.headers).map(([name, h]) => [
                name,
                { description: h.description, schema: standalone(h.schema) },
              ]),
            ),
          }
        : {}),
      ...(a.body
        ? { content: { [a.text ? 'text/plain' : 'application/json']: { schema: responses.inPlaceOf(a.body) } } }
        : {}),
    };
  };

  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) {
    const item = (paths[r.path] ??= r.pathParams ? { parameters: r.pathParams.map(parameter) } : {});
    const parameters = [
      ...(r.headers ?? []).map(parameter),
      ...(r.query ? queryParameters(r, requests.inPlaceOf(r.query)) : []),
    ];
    // Every /api route but a webhook (served in front of the app) may answer 500 from the app's error handler.
    const internal: OperationObject['responses'] =
      r.path.startsWith('/api/') && r.tag !== 'webhooks' ? { '500': answer('Internal') } : {};
    const operation: OperationObject = {
      operationId: r.operationId,
      summary: r.summary,
      description: r.description,
      tags: [r.tag],
      ...(r.security ? { security: r.security } : {}),
      ...(parameters.length > 0 ? { parameters } : {}),
      ...(r.body
        ? {
            requestBody: {
              description: r.body.description,
              required: true,
              content: json(requests.inPlaceOf(r.body.schema)),
            },
          }
        : {}),
      responses: { ...Object.fromEntries(Object.entries(r.responses).map(([s, a]) => [s, answer(a)])), ...internal },
    };
    item[r.method] = operation;
  }

  const document: OpenApiDocument = {
    openapi: '3.1.0',
    info: {
      title: 'fixloop',
      version: '0.1.0',
      summary: "Governs the loop between an AI coding agent's pull request and the CI that judges it.",
      description:
        'The JSON API (SPEC M2) for Tasks, runs, the Inbox, the decision log and the global stop flag, and the GitHub webhook (SPEC A1). ' +
        'Every `/api/` route but the webhook needs `Authorization: Bearer <FIXLOOP_API_TOKEN>`; a run may report its own state with its FIXLOOP_RUN_TOKEN, ' +
        "and the `/api/run/*` routes take only a run's token.",
    },
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
    tags: [
      { name: 'health', description: 'Unauthenticated probes.' },
      { name: 'meta', description: 'This description.' },
      { name: 'tasks', description: 'Tasks: one pull request each.' },
      { name: 'runs', description: "Executions of a Task's agent." },
      { name: 'inbox', description: 'Notices for people.' },
      { name: 'deliveries', description: 'The decision log.' },
      { name: 'stop', description: 'The global stop flag.' },
      { name: 'pull-requests', description: 'Pull requests as GitHub reports them.' },
      {
        name: 'run',
        description:
          'What a resumed run may do, with its own token, about its own Task only (the MCP tools over the API).',
      },
      { name: 'webhooks', description: 'GitHub deliveries.' },
    ],
    security: [{ bearer: [] }],
    paths: paths as Record<string, PathItemObject>,
    components: {
      schemas: { ...responses.components, ...requests.components },
      responses: {
        BadRequest: {
          description: 'The body or query is invalid (`invalid_body`, `invalid_query`).',
          content: json(schemaRef('Problem')),
        },
        Unauthorized: {
          description: 'The bearer token is missing or wrong (`unauthorized`).',
          content: json(schemaRef('Problem')),
        },
        NotFound: { description: 'No such resource (`not_found`).', content: json(schemaRef('Problem')) },
        Internal: {
          description: 'An unexpected error (`internal`); details are only in the server log.',
          content: json(schemaRef('Problem')),
        },
      },
      parameters: PATH_PARAMETERS,
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description:
            'The API token, FIXLOOP_API_TOKEN. A loopback-only install may run without one, in which case the API is open to local callers.',
        },
        runToken: {
          type: 'http',
          scheme: 'bearer',
          description:
            "A run's own token, FIXLOOP_RUN_TOKEN, handed to the agent when the run is dispatched. It is accepted only by " +
            'PATCH /api/runs/{id} for that same run and by the `/api/run/*` routes, which act for that run alone, and only until the run has ended.',
        },
      },
    },
  };
  // A schema written in place must never be referred to by another: its id is the generator's, not a name.
  if (JSON.stringify(document).includes(IN_PLACE))
    throw new Error('the API document refers to a schema written in place');
  return document;
}

export const openApiDocument: OpenApiDocument = build(ROUTES);
