// Every HTTP route fixloop documents, declared once (issue 34, decision 0058), in the document's order:
// routes/*.ts declare them by resource; openapi.ts generates the OpenAPI document from this list.
import { PROBE_ROUTES } from './routes/probes.js';
import { TASK_ROUTES } from './routes/tasks.js';
import { RUN_ROUTES } from './routes/runs.js';
import { INBOX_ROUTES } from './routes/inbox.js';
import { STOP_ROUTES } from './routes/stop.js';
import { PULL_REQUEST_ROUTES } from './routes/pull-requests.js';
import { RUN_OPS_ROUTES } from './routes/run-ops.js';
import { WEBHOOK_ROUTES } from './routes/webhooks.js';
import type { RouteDeclaration } from './routes/route.js';

export type { RouteDeclaration } from './routes/route.js';

export const ROUTES: readonly RouteDeclaration[] = [
  ...PROBE_ROUTES,
  ...TASK_ROUTES,
  ...RUN_ROUTES,
  ...INBOX_ROUTES,
  ...STOP_ROUTES,
  ...PULL_REQUEST_ROUTES,
  ...RUN_OPS_ROUTES,
  ...WEBHOOK_ROUTES,
];

/** The /api routes whose body or query the server validates with the declared schema (a 400 when invalid). */
export const API_ROUTES: readonly RouteDeclaration[] = ROUTES.filter((r) => r.invalid !== undefined);
