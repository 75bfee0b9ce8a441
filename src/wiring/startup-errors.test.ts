// Issue 32: each start-up step's error worded as one line naming the setting to change (the real
// processes are in test/startup.test.ts; these are the cases a test machine cannot easily produce).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { explainStartupError, StartupError, StartupStepError, startupErrorText } from './startup-errors.js';

const where = {
  port: 3000,
  host: '127.0.0.1',
  databaseUrl: 'postgres://fixloop:secret@db.internal:6543/fixloop',
  tokenFile: './data/api-token',
  uid: 1000,
};
const coded = (code: string, message: string) => Object.assign(new Error(message), { code });
const wrapped = (inner: Error) => new Error(`migration ? failed: ${inner.message}`, { cause: inner });

test('a wrong PostgreSQL password, a missing database and a role without CREATE each name what to change', () => {
  const say = (code: string, message: string) =>
    explainStartupError(new StartupStepError('database', wrapped(coded(code, message))), where).message;
  assert.match(
    say('28P01', 'password authentication failed'),
    /db\.internal:6543 refused the password in DATABASE_URL/,
  );
  assert.match(say('3D000', 'database "fixloop" does not exist'), /no such database .*createdb/);
  assert.match(say('42501', 'permission denied for schema public'), /grant it CREATE/);
  for (const m of [say('28P01', 'x'), say('3D000', 'x')]) assert.doesNotMatch(m, /secret|migration/);
});

test('a port that needs privileges, a foreign HOST and an unwritable token file', () => {
  const listen = (code: string) =>
    explainStartupError(new StartupStepError('listen', coded(code, code)), where).message;
  assert.match(listen('EACCES'), /set PORT to 1024 or above/);
  assert.match(listen('EADDRNOTAVAIL'), /set HOST to one of its addresses/);
  const token = explainStartupError(new StartupStepError('token', coded('EACCES', 'permission denied')), where);
  assert.match(
    token.message,
    /\.\/data\/api-token: permission denied: make its directory writable by the user fixloop runs as \(uid 1000\)/,
  );
});

test('the stack only with LOG_LEVEL=debug', () => {
  const e = new StartupError('port 3000 on 127.0.0.1 is already in use', { cause: new Error('listen EADDRINUSE') });
  assert.equal(startupErrorText(e, 'info'), 'fixloop: cannot start: port 3000 on 127.0.0.1 is already in use\n');
  assert.match(startupErrorText(e, 'debug'), /\n\s+at /);
});
