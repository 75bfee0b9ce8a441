# fixloop's image (decision 0026, 0048). Three stages: `build` compiles src/ with the dev dependencies,
# `deps` installs the production dependencies alone (better-sqlite3 compiles there when no prebuilt
# binary can be fetched, so the runtime needs no compiler), and `runtime` is node:22-bookworm-slim
# with dist/, those node_modules and git (for workspaces), run as an unprivileged user.
#   docker build -t fixloop .
#   docker run -p 3000:3000 -e WEBHOOK_SECRET=… -e FIXLOOP_API_TOKEN=… -v fixloop-data:/data fixloop
# Node 22 LTS is the line the image runs (Node 20, which fixloop still supports, left upstream support
# in April 2026). The base images are pinned by digest, so a rebuild uses the same bytes: to move to a
# newer Node 22, change each tag and its digest together (`docker buildx imagetools inspect node:22-…`).
# The agent is not in this image: the example config's `http` runner resumes it on an agent platform,
# as a non-root container can neither switch users nor, under Docker's default seccomp profile, make
# bubblewrap's namespaces (docs/container.md).

FROM node:22.23.3-bookworm@sha256:363e1587494626837fa7f9a23bdb453d13b0ff3c67c705c2805cfc69c2d2fad7 AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

FROM node:22.23.3-bookworm@sha256:363e1587494626837fa7f9a23bdb453d13b0ff3c67c705c2805cfc69c2d2fad7 AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

FROM node:22.23.3-bookworm-slim@sha256:43ac6c60b8f89723f746e8a92ce91abd5017e627ce1ddfe4238355d3a30b772c AS runtime
RUN apt-get update \
  && apt-get install -y --no-install-recommends git ca-certificates tini \
  && rm -rf /var/lib/apt/lists/* \
  && groupadd --system fixloop \
  && useradd --system --gid fixloop --home-dir /data --shell /usr/sbin/nologin fixloop \
  && mkdir -p /data \
  && chown fixloop:fixloop /data
WORKDIR /opt/fixloop
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json package-lock.json fixloop.example.yaml app.yml ./
COPY bin ./bin
COPY hooks ./hooks
# Listening on every interface requires FIXLOOP_API_TOKEN (fixloop refuses to start without it).
# The memory settings are decision 0010's, as `npm start` gives them.
ENV NODE_ENV=production \
  HOST=0.0.0.0 \
  PORT=3000 \
  DATABASE_URL=sqlite:/data/fixloop.db \
  FIXLOOP_WORK_DIR=/data/runs \
  FIXLOOP_API_TOKEN_FILE=/data/api-token \
  MALLOC_ARENA_MAX=2
USER fixloop
VOLUME ["/data"]
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# tini forwards SIGTERM to node, which closes the server and settles what runs (docs/operations.md, "When fixloop dies").
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "--enable-source-maps", "--max-semi-space-size=4", "--heap-growing-percent=50", "bin/fixloop.mjs", "serve"]
