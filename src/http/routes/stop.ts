// The global stop flag (K2, M4): read it, set it.
import { putStop } from '../api-requests.js';
import { stopFlagUnreadable } from '../schemas/stop-flag.js';
import type { RouteDeclaration } from './route.js';

export const STOP_ROUTES: readonly RouteDeclaration[] = [
  {
    method: 'get',
    path: '/api/stop',
    operationId: 'getStopFlag',
    summary: 'Read the stop flag',
    description: 'Tells whether the global stop flag, which halts every automatic resume, is set.',
    tag: 'stop',
    responses: {
      '200': { description: 'The flag.', body: putStop },
      '401': 'Unauthorized',
      '503': { description: 'The flag could not be read (the loop treats this as stopped).', body: stopFlagUnreadable },
    },
  },
  {
    method: 'put',
    path: '/api/stop',
    operationId: 'setStopFlag',
    summary: 'Set the stop flag',
    description:
      "Sets or clears the global stop flag durably, for every replica at once; recorded as a person's (`stop_all`, `start_all`).",
    tag: 'stop',
    body: { name: 'StopFlag', description: 'The new value.', schema: putStop },
    invalid: 'invalid_body',
    responses: {
      '200': { description: 'The flag as written.', body: putStop },
      '400': 'BadRequest',
      '401': 'Unauthorized',
    },
  },
];
