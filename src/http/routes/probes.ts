// The unauthenticated probes (M2) and the document itself.
import { z } from 'zod';
import type { RouteDeclaration } from './route.js';

const open = [] as const;

export const PROBE_ROUTES: readonly RouteDeclaration[] = [
  {
    method: 'get',
    path: '/healthz',
    operationId: 'getHealth',
    summary: 'Liveness',
    description: 'Answers as long as the process is serving HTTP, without touching the database.',
    tag: 'health',
    security: open,
    responses: { '200': { description: 'The process is alive.', body: z.object({ ok: z.literal(true) }) } },
  },
  {
    method: 'get',
    path: '/readyz',
    operationId: 'getReadiness',
    summary: 'Readiness',
    description: 'Reports whether this replica can take traffic, i.e. whether its ledger is reachable.',
    tag: 'health',
    security: open,
    responses: {
      '200': { description: 'Ready.', body: z.object({ ready: z.literal(true) }) },
      '503': { description: 'Not ready.', body: z.object({ ready: z.literal(false) }) },
    },
  },
  {
    method: 'get',
    path: '/ping',
    operationId: 'ping',
    summary: 'Ping',
    description: 'Returns the plain-text word PONG, for the simplest of probes.',
    tag: 'health',
    security: open,
    responses: { '200': { description: 'PONG.', body: z.literal('PONG'), text: true } },
  },
  {
    method: 'get',
    path: '/api/openapi.json',
    operationId: 'getOpenApiDocument',
    summary: 'This document',
    description: 'Serves this OpenAPI 3.1 document describing the API.',
    tag: 'meta',
    responses: {
      '200': { description: 'The OpenAPI document.', body: z.looseObject({}) },
      '401': 'Unauthorized',
    },
  },
];
