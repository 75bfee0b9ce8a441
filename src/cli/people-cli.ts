// The people's commands as commander sees them (SPEC M1): their names, arguments, options and help,
// each handing over to people-commands.ts. Older names keep working: `task approve-one` is `approve`,
// `resume` with no Task clears the global stop flag as `start` does, `task budget` stays as it was.
import type { Command } from 'commander';
import { callApi } from './api-client.js';
import { checkedUrl, userConfigPath, writeUserConfig } from './connection.js';
import { CliError, type CliIo } from './io.js';
import {
  budgetCommand,
  cancelCommand,
  inboxCommand,
  resultsCommand,
  resumeTaskCommand,
  runsCommand,
  taskActionCommand,
  tasksCommand,
  type ListOptions,
  type ServerOptions,
  type TaskAction,
} from './people-commands.js';
import { runApiCommand, API_COMMANDS } from './api-commands.js';

export type { ServerOptions } from './people-commands.js';

/** --url and --token (and --json) on a command that talks to the server. */
export function serverOptions(cmd: Command, json = true): Command {
  cmd
    .option('--url <url>', 'server URL (default: $FIXLOOP_URL, then `fixloop login`, then http://127.0.0.1:$PORT)')
    .option(
      '--token <token>',
      'API token (default: $FIXLOOP_API_TOKEN, then `fixloop login`, then $FIXLOOP_API_TOKEN_FILE)',
    );
  if (json) cmd.option('--json', "print the server's JSON answer instead of the table or line");
  return cmd;
}

export function registerPeopleCommands(program: Command, io: CliIo, exit: (code: number) => void): void {
  serverOptions(
    program
      .command('tasks')
      .description('the Tasks as a table: pull request, state, loop, attempts used, last failure, age (newest first)')
      .option('--repo <owner/name>', 'only this repository')
      .option(
        '--state <state>',
        'open, done, cancelled, or a loop state: needs-person, agent-running, parked, off, idle, …',
      )
      .option('--limit <n>', 'at most this many, 1–200', '50'),
  ).action(async (opts: ListOptions) => exit(await tasksCommand(opts, io)));

  serverOptions(
    program
      .command('inbox')
      .description('what needs a person now: the Tasks where the loop stopped, and why (oldest first)')
      .option('--repo <owner/name>', 'only this repository')
      .option('--limit <n>', 'at most this many, 1–200', '50'),
  ).action(async (opts: ListOptions) => exit(await inboxCommand(opts, io)));

  serverOptions(
    program
      .command('runs')
      .description("the agents' runs: Task, kind, state, when the agent reached fixloop (newest first)")
      .option('--task <id>', "only this Task's runs")
      .option('--state <state>', 'queued, running, question, completed, failed or cancelled')
      .option('--limit <n>', 'at most this many, 1–200', '50'),
  ).action(async (opts: ListOptions) => exit(await runsCommand(opts, io)));

  serverOptions(
    program
      .command('results')
      .description('whether the loop pays: pull requests fixed, attempts and spend per green pull request, hand-offs')
      .option('--period <period>', 'the period, as the server takes it (e.g. 30d)')
      .option('--repo <owner/name>', 'only this repository'),
  ).action(async (opts: ListOptions) => exit(await resultsCommand(opts, io)));

  const actions: Array<[TaskAction, string]> = [
    ['approve', "grant one more automatic attempt after the loop stopped (refused past the Task's cap on grants)"],
    ['park', 'park the Task: it will not re-enter the loop until someone unparks it'],
    ['unpark', 'unpark the Task'],
    ['off', 'turn the loop off for this Task'],
    ['on', 'turn the loop back on for this Task'],
  ];
  for (const [action, description] of actions)
    serverOptions(program.command(action).description(description).argument('<task>', 'the Task id')).action(
      async (id: string, opts: ServerOptions) => exit(await taskActionCommand(action, id, opts, io)),
    );

  serverOptions(
    program
      .command('cancel')
      .description("cancel an agent's run and stop its agent (a webhook never undoes it)")
      .argument('<run>', 'the run id (see `fixloop runs`)'),
  ).action(async (id: string, opts: ServerOptions) => exit(await cancelCommand(id, opts, io)));

  // SPEC M1's stop/resume: with no Task, `resume` clears the global stop flag, as it always has.
  const start = API_COMMANDS.find((c) => c.name === 'start')!;
  serverOptions(
    program
      .command('resume')
      .description("start the Task's agent with your message (with no Task: clear the global stop flag, as `start`)")
      .argument('[task]', 'the Task id')
      .option('-m, --message <text>', 'what the agent is asked to do (required with a Task)'),
  ).action(async (id: string | undefined, opts: ServerOptions & { message?: string }) => {
    if (id === undefined) {
      if (opts.message !== undefined)
        throw new CliError(2, '--message needs a Task: fixloop resume <task> --message TEXT');
      return exit(await runApiCommand(start, opts, io));
    }
    if (opts.message === undefined)
      throw new CliError(2, 'a Task is resumed with a message: fixloop resume <task> --message TEXT');
    exit(await resumeTaskCommand(id, opts.message, opts, io));
  });

  // K5, V4: the names another engineer gave the grants first; kept, and the same as the commands above.
  const task = program.command('task').description('act on one Task as a person: grants of one more attempt');
  serverOptions(
    task.command('approve-one').description('the same as `fixloop approve`').argument('<id>', 'the Task id'),
  ).action(async (id: string, opts: ServerOptions) =>
    exit(await taskActionCommand('approve', id, opts, io, 'task approve-one')),
  );
  serverOptions(
    task
      .command('budget')
      .description("set the Task's own cap on grants of one more attempt across its life (raising it opens more)")
      .argument('<id>', 'the Task id')
      .requiredOption('--max-grants <n>', 'the cap, 0–20, or "configured" for the configured TASK_MAX_GRANTS'),
  ).action(async (id: string, opts: ServerOptions & { maxGrants: string }) =>
    exit(await budgetCommand(id, opts.maxGrants, opts, io)),
  );

  program
    .command('login')
    .description('remember the server and its API token for this user (written 0600)')
    .requiredOption('--url <url>', 'the server URL, e.g. https://fixloop.example.com')
    .requiredOption('--token <token>', "the server's API token (FIXLOOP_API_TOKEN on the server)")
    .option('--no-check', 'write without asking the server whether it takes the token')
    .action(async (opts: { url: string; token: string; check: boolean }) => exit(await login(opts, io)));
}

/** `fixloop login`: checks the token against the server (GET /api/stop), then writes the file. */
async function login(opts: { url: string; token: string; check: boolean }, io: CliIo): Promise<number> {
  const path = userConfigPath(io.env);
  if (path === null) throw new CliError(2, 'neither XDG_CONFIG_HOME nor HOME is set: nowhere to write the config file');
  const token = opts.token.trim();
  if (!token) throw new CliError(2, '--token must not be empty');
  const baseUrl = checkedUrl(opts.url.trim(), '--url');
  if (opts.check) {
    const res = await callApi({ baseUrl, method: 'GET', path: '/api/stop', token, fetch: io.fetch });
    if (res.status === 401 || res.status === 403)
      throw new CliError(2, `${baseUrl} refused this token (it answered ${res.status}); nothing was written`);
    if (!res.ok && res.status !== 503)
      throw new CliError(
        1,
        `${baseUrl} answered ${res.status} ${res.statusText} to GET /api/stop; nothing was written`,
      );
  }
  writeUserConfig(path, { url: baseUrl, token });
  io.stdout.write(`Saved ${baseUrl} and its token to ${path} (readable by you only).\n`);
  return 0;
}
