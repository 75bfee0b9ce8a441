// A hostile stand-in agent for the isolation tests (SPEC L3): it tries every way it knows to read
// fixloop's secrets — its own environment, every /proc/<pid>/environ it can open, the files open in
// any process it can look into, its parent's working directory, every file under the directories
// (`--dir`) and the files (`--file`) named on its command line — and prints what it got as one line,
// `PROBE {json}`: each planted secret (`fixloop-secret-<name>-<hex>`) it found and where, and every
// file it could open with its first bytes (so a secret it cannot recognise, a generated token, shows).
import { closeSync, constants, lstatSync, openSync, readdirSync, readlinkSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';

const MARKER = /fixloop-secret-[a-z]+-[0-9a-f]{16}/g;
const MAX_BYTES = 1024 * 1024;

const dirs = [];
const files = [];
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i += 2) (argv[i] === '--dir' ? dirs : files).push(argv[i + 1]);

const found = [];
const readable = [];
const denied = [];

/** The first MAX_BYTES of `path`, never blocking (a pipe or a FIFO answers EAGAIN), or the error code. */
function read(path) {
  let fd;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
    const buf = Buffer.alloc(MAX_BYTES);
    const n = readSync(fd, buf, 0, MAX_BYTES, null);
    return { text: buf.subarray(0, n).toString('latin1') };
  } catch (err) {
    return { error: err.code ?? String(err) };
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function search(where, text) {
  for (const m of text.matchAll(MARKER)) found.push({ where, secret: m[0] });
}

/** `what` names a file held open by another process (its head is left out: there may be many). */
function tryFile(path, what) {
  const r = read(path);
  if (r.error) {
    denied.push({ path, error: r.error });
    return;
  }
  readable.push(what ? { path, what } : { path, head: r.text.slice(0, 200) });
  search(path, r.text);
}

function walk(dir) {
  let names;
  try {
    names = readdirSync(dir);
  } catch (err) {
    denied.push({ path: dir, error: err.code });
    return;
  }
  for (const name of names) {
    const path = join(dir, name);
    let st;
    try {
      st = lstatSync(path);
    } catch (err) {
      denied.push({ path, error: err.code });
      continue;
    }
    if (st.isDirectory()) walk(path);
    else if (st.isFile()) tryFile(path);
  }
}

// 1. Its own environment.
for (const [name, value] of Object.entries(process.env)) search(`env ${name}`, `${name}=${value}`);

// 2. Every process it can see: its environment, and the regular files it holds open.
const environs = { readable: [], denied: 0 };
const pids = readdirSync('/proc').filter((n) => /^\d+$/.test(n));
for (const pid of pids) {
  const r = read(`/proc/${pid}/environ`);
  if (r.error) environs.denied++;
  else {
    environs.readable.push(Number(pid));
    search(`/proc/${pid}/environ`, r.text);
  }
  if (Number(pid) === process.pid) continue;
  let fds = [];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    continue;
  }
  for (const fd of fds) {
    const path = `/proc/${pid}/fd/${fd}`;
    try {
      // Regular files only: reading another process's pipe or socket would steal its bytes.
      if (!statSync(path).isFile()) continue;
      tryFile(path, readlinkSync(path));
    } catch {
      continue;
    }
  }
}
const parent = {
  pid: process.ppid,
  environ: read(`/proc/${process.ppid}/environ`).error ?? 'readable',
  cwd: (() => {
    try {
      readdirSync(`/proc/${process.ppid}/cwd`);
      return 'readable';
    } catch (err) {
      return err.code;
    }
  })(),
};

// 3. fixloop's files: the data directories, and each file named.
for (const dir of dirs) walk(dir);
for (const file of files) tryFile(file);

process.stdout.write(
  `PROBE ${JSON.stringify({
    uid: process.getuid(),
    gid: process.getgid(),
    groups: process.getgroups(),
    pid: process.pid,
    parent,
    cwd: process.cwd(),
    home: process.env.HOME,
    env: Object.keys(process.env).sort(),
    found,
    environs,
    readable,
    denied,
  })}\n`,
);
