// What one HTTP route of fixloop is, declared once (issue 34, decision 0058): its method and path,
// the words of its OpenAPI operation, and every schema it reads or answers, as zod. The document
// (openapi.ts) is generated from these declarations; the handlers parse with the same request schemas.
import type { z } from 'zod';
import type { SecurityRequirement } from '../openapi-types.js';

export type HttpMethod = 'get' | 'put' | 'post' | 'patch';

/** A path, query or header parameter described by hand; its schema is zod's like the rest. */
export interface ParameterDeclaration {
  name: string;
  in: 'path' | 'header';
  required: boolean;
  description: string;
  schema: z.ZodType;
}

/** A parameter shared by many paths, under its name in the document's components. */
export type SharedParameter = 'TaskId' | 'RunId';

/** An answer: what it means, and the JSON (or plain text) it carries, if any. */
export interface ResponseDeclaration {
  description: string;
  body?: z.ZodType;
  /** The body is plain text, not JSON. */
  text?: true;
  headers?: { readonly [name: string]: { description: string; schema: z.ZodType } };
}

/** An answer every route gives alike, under its name in the document's components. */
export type SharedResponse = 'BadRequest' | 'Unauthorized' | 'NotFound';

export interface RouteDeclaration {
  method: HttpMethod;
  /** The OpenAPI path, `{id}` for a parameter. */
  path: string;
  operationId: string;
  summary: string;
  description: string;
  tag: string;
  /** Absent: the document's global requirement (the API token); `[]`: open. */
  security?: readonly SecurityRequirement[];
  /** The path's parameters, shared by every method of the path. */
  pathParams?: readonly (ParameterDeclaration | SharedParameter)[];
  /** Header parameters of this operation (a webhook's signature, …). */
  headers?: readonly ParameterDeclaration[];
  /** The JSON body; a named one is a component of the document, under its public name. */
  body?: { name?: string; description: string; schema: z.ZodType };
  /** The query string; keys that name a path parameter are documented as that, not as a query. */
  query?: z.ZodObject;
  /** The 400 `error` the route answers for an invalid body or query. */
  invalid?: 'invalid_body' | 'invalid_query' | 'invalid';
  responses: { readonly [status: string]: ResponseDeclaration | SharedResponse };
}
