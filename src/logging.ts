// Structured logs with pino (SPEC N2); secrets that might ride in a logged object are redacted.
import { pino, type Logger as Pino } from 'pino';

export function createLogger(level: string, destination?: NodeJS.WritableStream): Pino {
  return pino(
    {
      level,
      base: { service: 'fixloop' },
      redact: {
        paths: [
          '*.token',
          '*.runToken',
          '*.secret',
          '*.apiToken',
          '*.authorization',
          'headers.authorization',
          '*.privateKey',
          '*.webhookSecrets',
        ],
        censor: '[redacted]',
      },
    },
    destination as never,
  );
}
