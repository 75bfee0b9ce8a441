// A small typing of the parts of OpenAPI 3.1 the generated document uses (openapi.ts builds it from
// the route declarations; tests read it through these types).

type JsonType = 'string' | 'number' | 'integer' | 'boolean' | 'object' | 'array' | 'null';
type JsonScalar = string | number | boolean | null;

/** A JSON Schema 2020-12 object (OpenAPI 3.1's Schema Object dialect). */
export interface SchemaObject {
  $ref?: string;
  type?: JsonType | readonly JsonType[];
  title?: string;
  description?: string;
  enum?: readonly JsonScalar[];
  const?: JsonScalar;
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  default?: JsonScalar;
  examples?: readonly JsonScalar[];
  properties?: { readonly [name: string]: SchemaObject };
  required?: readonly string[];
  additionalProperties?: boolean | SchemaObject;
  items?: SchemaObject;
  anyOf?: readonly SchemaObject[];
  oneOf?: readonly SchemaObject[];
}

export interface RefObject {
  $ref: string;
}

export interface ParameterObject {
  name: string;
  in: 'path' | 'query' | 'header';
  description: string;
  required?: boolean;
  schema: SchemaObject;
}

export interface MediaTypeObject {
  schema: SchemaObject;
}

export interface HeaderObject {
  description: string;
  schema: SchemaObject;
}

export interface ResponseObject {
  description: string;
  headers?: { readonly [name: string]: HeaderObject };
  content?: { readonly [mediaType: string]: MediaTypeObject };
}

export interface RequestBodyObject {
  description: string;
  required: boolean;
  content: { readonly [mediaType: string]: MediaTypeObject };
}

export type SecurityRequirement = { readonly [scheme: string]: readonly string[] };

export interface OperationObject {
  operationId: string;
  summary: string;
  description: string;
  tags: readonly string[];
  parameters?: readonly (ParameterObject | RefObject)[];
  requestBody?: RequestBodyObject;
  responses: { readonly [status: string]: ResponseObject | RefObject };
  security?: readonly SecurityRequirement[];
}

export type HttpMethod = 'get' | 'put' | 'post' | 'delete' | 'patch';

export type PathItemObject = { readonly [M in HttpMethod]?: OperationObject } & {
  parameters?: readonly (ParameterObject | RefObject)[];
};

export interface SecuritySchemeObject {
  type: 'http';
  scheme: 'bearer';
  description: string;
}

export interface OpenApiDocument {
  openapi: '3.1.0';
  info: {
    title: string;
    version: string;
    summary: string;
    description: string;
    license?: { name: string; identifier: string };
  };
  jsonSchemaDialect: string;
  servers?: readonly { url: string; description: string }[];
  tags: readonly { name: string; description: string }[];
  security: readonly SecurityRequirement[];
  paths: { readonly [path: string]: PathItemObject };
  components: {
    schemas: { readonly [name: string]: SchemaObject };
    responses: { readonly [name: string]: ResponseObject };
    parameters: { readonly [name: string]: ParameterObject };
    securitySchemes: { readonly [name: string]: SecuritySchemeObject };
  };
}
