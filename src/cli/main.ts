// The `fixloop` command line (SPEC M1): serve, the server's read/stop commands, `pr checks` (J1),
// replay of a saved delivery, and `mcp`, the MCP stdio server beside a resumed agent (M3).
// `run(argv, io)` is the whole CLI as a function returning the exit code — 0 ok, 1 the server, the
// network or GitHub failed, 2 a malformed argument or configuration — so tests call it in-process;
// executed directly, this file runs it on process.argv. It is the process's entry point (the `bin`),
// so it sits in the main layer with main.ts: it picks which driver this process runs.
import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { Command, CommanderError } from 'commander';
import { ConfigError } from '../config/errors.js';
import { API_COMMANDS, runApiCommand } from './api-commands.js';
import { CliError, type CliIo } from './io.js';
import { registerPeopleCommands, serverOptions, type ServerOptions } from './people-cli.js';
import { prChecksCommand, type PrChecksOptions } from './pr-checks.js';
import { replay, type ReplayOptions } from './replay.js';
import { packageVersion } from '../version.js';
import { StartupError, startupErrorText } from '../wiring/startup-errors.js';

export async function run(argv: string[], io: Partial<CliIo> = {}): Promise<number> {
  const cli: CliIo = {
    stdout: io.stdout ?? process.stdout,
    stderr: io.stderr ?? process.stderr,
    env: io.env ?? process.env,
    fetch: io.fetch ?? globalThis.fetch,
    now: io.now ?? (() => new Date()),
  };
  let code = 0;
  const program = buildProgram(cli, (c) => {
    code = c;
  });
  try {
    await program.parseAsync(argv, { from: 'user' });
    return code;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : 2; // commander already printed it
    if (err instanceof CliError) {
      cli.stderr.write(`fixloop${err.command ? ` ${err.command}` : ''}: ${err.message}\n`);
      return err.exitCode;
    }
    if (err instanceof ConfigError) {
      cli.stderr.write(`fixloop: ${err.message}\n`);
      return 2;
    }
    if (err instanceof StartupError) {
      // Issue 32: one line with the cause and the fix; the stack only with LOG_LEVEL=debug.
      cli.stderr.write(startupErrorText(err, cli.env.LOG_LEVEL));
      return 2;
    }
    cli.stderr.write(`fixloop: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    return 1;
  }
}

function buildProgram(io: CliIo, exit: (code: number) => void): Command {
  // Settings made before .command() are inherited by every subcommand (exitOverride, output).
  const program = new Command('fixloop')
    .description('Resume an AI coding agent when its pull request goes red, under a hard budget.')
    .version(packageVersion())
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) })
    .showHelpAfterError('(fixloop --help for usage)');

  program
    .command('serve')
    .description('run the service: webhooks, poll, API, dashboard')
    .option('-c, --config <file>', 'config file, YAML or JSON (default: $FIXLOOP_CONFIG)')
    .action(async (opts: { config?: string }) => {
      // Loaded on demand so the client commands never open a database or load the server.
      const { serve } = await import('../main.js');
      const server = await serve({ configFile: opts.config, env: io.env });
      // Issue 32: a person's first lines (URL, token, Works, what next); the JSON logs stay on stdout.
      io.stderr.write(`${server.banner.join('\n')}\n`);
      const code = await untilSignal(server.close, io, server.shutdownGraceMs);
      exit(code);
      // V4: closed, the process ends now even if a handle someone left open would keep it alive.
      setTimeout(() => process.exit(code), 1_000).unref();
    });

  registerPeopleCommands(program, io, exit);
  for (const spec of API_COMMANDS) {
    serverOptions(
      program
        .command(spec.name)
        .aliases(spec.aliases ?? [])
        .description(spec.description),
    ).action(async (opts: ServerOptions) => exit(await runApiCommand(spec, opts, io)));
  }

  const pr = program
    .command('pr')
    .description(
      'read a pull request through the server, or on GitHub with GITHUB_TOKEN (or APP_ID with PRIVATE_KEY) when no server is configured',
    );
  const checks = pr
    .command('checks')
    .description(
      'every check run and status of the head as JSON, failing ones marked, with the log tails of the first five failing Actions jobs',
    )
    .argument('<pr>', 'the pull request, owner/repo#N')
    .option('--failing', 'only the failing checks and statuses')
    .option('--log-lines <n>', 'lines of each log tail, 0–2000 (0: no logs)', '200');
  serverOptions(checks, false).action(async (ref: string, opts: PrChecksOptions) =>
    exit(await prChecksCommand(ref, opts, io)),
  );

  program
    .command('mcp')
    .description('serve MCP on stdio for the agent run given by $FIXLOOP_API_URL and $FIXLOOP_RUN_TOKEN')
    .action(async () => {
      const { serveMcpStdio, McpStartupError } = await import('../mcp/stdio.js');
      const { createLogger } = await import('../logging.js');
      try {
        const logger = createLogger(io.env.LOG_LEVEL ?? 'info', process.stderr);
        await serveMcpStdio({ env: io.env, fetch: io.fetch, logger });
      } catch (err) {
        throw err instanceof McpStartupError ? new CliError(2, err.message) : err;
      }
      exit(0);
    });

  // V3 (decision 0050): the setup page's twin for a host without a browser.
  program
    .command('setup')
    .description('connect fixloop to GitHub: create its GitHub App and store the credentials')
    .command('github')
    .description(
      "create fixloop's GitHub App from its manifest: writes the page to open in a browser, then --code stores the App's id, key and webhook secret",
    )
    .option('--org <name>', 'create it on this organisation (default: your personal account)')
    .option('--name <name>', 'the App name, unique on GitHub (default: fixloop-<random>)')
    .option(
      '--github-url <url>',
      'a GitHub Enterprise Server address (default: github.com, or GHE_HOST / GITHUB_API_URL)',
    )
    .option('--code <code>', 'the code GitHub sent, or the whole address of the page it sent the browser to')
    .option('-c, --config <file>', 'config file, YAML or JSON (default: $FIXLOOP_CONFIG)')
    .action(async (opts: { org?: string; name?: string; githubUrl?: string; code?: string; config?: string }) => {
      const { runSetupGitHub } = await import('../wiring/github-setup.js');
      exit(await runSetupGitHub(opts, io, opts.config));
    });

  program
    .command('replay')
    .description("sign a saved delivery with WEBHOOK_SECRET's first secret and post it to the server")
    .argument('<file>', 'a {"event", "delivery", "payload"} file, or a raw payload (then --event is required)')
    .option('--event <name>', 'X-GitHub-Event (wins over the file)')
    .option('--delivery <id>', "X-GitHub-Delivery (default: the file's, else a random UUID)")
    .option('--url <url>', 'server URL (default: $FIXLOOP_URL or http://127.0.0.1:$PORT)')
    .action(async (file: string, opts: ReplayOptions) => exit(await replay(file, opts, io)));

  return program;
}

/** After the shutdown's grace, how long closing may take before the process exits anyway (V4). */
const CLOSE_DEADLINE_MS = 10_000;

/**
 * Serve until SIGINT/SIGTERM, then close: new work stops, running agents get `graceMs` to finish
 * (V4, main.ts close()); a second signal exits at once, and so does a close that outlasts the grace
 * by CLOSE_DEADLINE_MS (the next start reconciles what it left).
 */
function untilSignal(close: () => Promise<void>, io: CliIo, graceMs: number): Promise<number> {
  return new Promise((resolve) => {
    let closing = false;
    const onSignal = (signal: NodeJS.Signals): void => {
      if (closing) {
        io.stderr.write(`fixloop: ${signal} again, exiting without waiting\n`);
        process.exit(1);
      }
      closing = true;
      io.stderr.write(
        `fixloop: ${signal}, closing: no new work; running agents have ${Math.round(graceMs / 1000)} s to finish\n`,
      );
      setTimeout(() => {
        io.stderr.write('fixloop: closing took too long, exiting without waiting\n');
        process.exit(1);
      }, graceMs + CLOSE_DEADLINE_MS).unref();
      close().then(
        () => done(0),
        (err: unknown) => {
          io.stderr.write(`fixloop: close failed: ${err instanceof Error ? err.message : String(err)}\n`);
          done(1);
        },
      );
    };
    const done = (code: number): void => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      resolve(code);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}

function isEntryPoint(): boolean {
  const script = process.argv[1];
  if (script === undefined) return false;
  try {
    return import.meta.url === pathToFileURL(realpathSync(script)).href;
  } catch {
    return false;
  }
}

if (isEntryPoint()) process.exitCode = await run(process.argv.slice(2));
