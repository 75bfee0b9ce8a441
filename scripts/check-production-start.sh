#!/usr/bin/env bash
# The production start as an operator gets it (decision 0026): a copy of the checkout without
# node_modules or dist/, `npm ci --omit=dev`, then the README's `npm start` on SQLite must answer 200
# on /healthz and /readyz — once from the sources (no TypeScript installed, so tsx runs src/), once
# in the image's layout (dist/ built elsewhere, no src/). A script, not a test: the install compiles
# better-sqlite3 where no prebuilt binary can be fetched, which takes minutes. .ci/run runs it.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/fixloop-production-XXXXXX")"
APP="$WORK/app"
SERVER_PID=""
# Stops the server's process group and waits until the server itself has exited.
stop_server() {
  if [ -z "$SERVER_PID" ]; then return; fi
  kill -TERM -- "-$SERVER_PID" 2>/dev/null || true
  wait "$SERVER_PID" 2>/dev/null || true
  for _ in $(seq 1 100); do
    if ! pgrep -g "$SERVER_PID" >/dev/null 2>&1; then break; fi
    sleep 0.1
  done
  kill -KILL -- "-$SERVER_PID" 2>/dev/null || true
  SERVER_PID=""
}
cleanup() {
  stop_server
  rm -rf "$WORK"
}
trap cleanup EXIT

mkdir -p "$APP"
tar -C "$ROOT" --exclude=./node_modules --exclude=./test/contract/agents/node_modules --exclude=./dist \
  --exclude=./data --exclude=./.tmp --exclude=./.git -cf - . |
  tar -C "$APP" -xf -
(cd "$APP" && npm ci --omit=dev --ignore-scripts=false --no-audit --no-fund)
if [ -e "$APP/node_modules/typescript" ]; then
  echo "check-production-start: typescript was installed by npm ci --omit=dev" >&2
  exit 1
fi

port() { node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }

# Starts `npm start` in $APP, waits for /healthz and /readyz to answer 200, stops it.
check_start() {
  local what="$1" p log
  p="$(port)"
  log="$WORK/$what.log"
  # Its own process group, so that stopping it stops npm, its shell and the server alike.
  (cd "$APP" && WEBHOOK_SECRET=change-me PORT="$p" DATABASE_URL="sqlite:$WORK/$what.sqlite" \
    FIXLOOP_WORK_DIR="$WORK/runs" LOG_LEVEL=warn exec setsid npm start) >"$log" 2>&1 &
  SERVER_PID=$!
  for _ in $(seq 1 300); do
    if curl -fsS "http://127.0.0.1:$p/readyz" >/dev/null 2>&1; then break; fi
    if ! kill -0 "$SERVER_PID" 2>/dev/null; then break; fi
    sleep 0.1
  done
  for path in /healthz /readyz; do
    local status
    status="$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$p$path" || true)"
    if [ "$status" != 200 ]; then
      echo "check-production-start ($what): GET $path answered ${status:-nothing}" >&2
      cat "$log" >&2
      exit 1
    fi
  done
  stop_server
  echo "check-production-start ($what): npm start answers 200 on /healthz and /readyz"
}

check_start source
if [ -e "$APP/dist" ]; then
  echo "check-production-start: npm start built dist/ without TypeScript?" >&2
  exit 1
fi

# The image's layout: dist/ compiled by the build stage, the sources left out.
node "$ROOT/node_modules/typescript/bin/tsc" -p "$ROOT/tsconfig.build.json" --outDir "$APP/dist"
rm -rf "$APP/src"
check_start dist
