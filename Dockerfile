# syntax=docker/dockerfile:1
# Verifier image: `docker build -t oracle-verifier .`
# Runs `node dist/src/main.js --config /app/config.json` (oracle-verifier-server) as the
# unprivileged `node` user (uid 1000); `oracle-verifier` (the CLI, dist/src/cli/main.js) is on the
# PATH too: the Kubernetes Jobs run `oracle-verifier reverify …` and `oracle-verifier merge …`.
# config.json is mounted at /app/config.json (it can change without rebuilding the image).

FROM node:20-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
# This stage only compiles TypeScript: no install script runs (--ignore-scripts), so nothing native
# (better-sqlite3, the Poseidon8 kernel, cbor-extract) is built or downloaded here; the deps stage
# builds the native modules the image runs.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY workers ./workers
COPY scripts/bin-modes.mjs ./scripts/
RUN npm run build

FROM node:20-slim AS deps
WORKDIR /src
# python3, make and a C/C++ compiler for node-gyp: npm ci's install scripts compile better-sqlite3
# and the native Poseidon8 kernel (without the kernel the verifier uses its WebAssembly one). The
# compiler stays in this stage.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
# Nothing is downloaded but npm packages: node-gyp takes Node's headers from the base image
# (/usr/local/include/node) instead of fetching them from nodejs.org, and better-sqlite3 is compiled
# from source: .prebuild-installrc tells its prebuild-install not to fetch a binary from GitHub.
ENV npm_config_nodedir=/usr/local
COPY package.json package-lock.json binding.gyp ./
COPY native ./native
COPY scripts/build-native.mjs ./scripts/
RUN echo 'buildFromSource=true' > .prebuild-installrc \
 && npm ci --omit=dev --no-audit --no-fund && npm cache clean --force && mkdir -p build/Release \
 && cd node_modules/better-sqlite3 \
 && rm -rf deps src build/Release/obj build/Release/obj.target build/Release/.deps build/Release/sqlite3.a build/Release/test_extension.node \
 && cd /src && node -e "new (require('better-sqlite3'))(':memory:').close()"

FROM node:20-slim
ENV NODE_ENV=production
# V8's young generation at most 3 × 4 MiB per thread (default 3 × 16 MiB): the peak RSS under 300
# connections is ≈ 30 MiB lower at the same throughput (bench/memory.ts, BENCHMARKS.md).
ENV NODE_OPTIONS="--max-semi-space-size=4 --max-old-space-size=256"
WORKDIR /app
COPY --from=deps --chown=root:root /src/node_modules ./node_modules
COPY --from=build --chown=root:root /src/dist ./dist
# build/Release holds poseidon8.node when the native build succeeded (empty otherwise: WASM kernel).
COPY --from=deps --chown=root:root /src/build/Release ./build/Release
COPY --chown=root:root package.json package-lock.json get-enclave-id.sh ./
COPY --chown=root:root trust ./trust
COPY --chown=root:root public ./public
COPY --chown=root:root examples/readme-request.json ./examples/readme-request.json
COPY --chown=root:root config.json ./config.json
# Code and trust roots stay root-owned and read-only for the service user; /data (the ledger
# watcher's store, a volume) is its only writable place.
RUN mkdir -p /data && chown node:node /data \
 && chmod 755 dist/src/main.js dist/src/cli/main.js \
 && ln -s /app/dist/src/main.js /usr/local/bin/oracle-verifier-server \
 && ln -s /app/dist/src/cli/main.js /usr/local/bin/oracle-verifier
USER node
EXPOSE 8080
# Liveness on /healthz (plain HTTP on the configured port; override HEALTHCHECK_URL if it differs).
ENV HEALTHCHECK_URL=http://127.0.0.1:8080/healthz
HEALTHCHECK --interval=15s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch(process.env.HEALTHCHECK_URL,{signal:AbortSignal.timeout(2500)}).then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
STOPSIGNAL SIGTERM
ENTRYPOINT ["node", "dist/src/main.js"]
CMD ["--config", "/app/config.json"]
