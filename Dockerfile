# The service's container image (docs/operating.md#deployment). One image runs
# the server (the default command), the delivery worker and the commands:
#   podman build --format docker --build-arg VERSION=$(node -p "require('./package.json').version") -t student-notification-service .
#   podman run -d -p 8080:8080 -v sns-data:/data student-notification-service
#   podman run --rm -v sns-data:/data student-notification-service node dist/cli/worker.js
# `--format docker` (podman): the OCI format has no HEALTHCHECK, podman drops it.

ARG NODE_IMAGE=docker.io/library/node:24-bookworm-slim

# Compiles src/ to dist/ with the dev dependencies (TypeScript). No install
# script is needed (below); without --ignore-scripts npm would run node-gyp for
# better-sqlite3 all the same, as its package holds a binding.gyp, and fail
# for want of a compiler.
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --omit=optional --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts/ensure-built.js scripts/check-node.js scripts/
COPY src ./src
RUN npm run build

# The production dependencies alone. better-sqlite3 13 ships its compiled
# (N-API) binding inside the npm package (prebuilds/linux-x64.node), so no
# install script runs and no compiler is needed; its C sources and the other platforms' bindings are
# dropped (about 25 MB), keeping the one this platform loads (glibc).
FROM ${NODE_IMAGE} AS production-dependencies
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --omit=optional --ignore-scripts --no-audit --no-fund \
  && keep="linux-$(node -p process.arch).node" \
  && find node_modules/better-sqlite3/prebuilds -type f ! -name "$keep" -delete \
  && rm -rf node_modules/better-sqlite3/deps node_modules/better-sqlite3/src node_modules/better-sqlite3/binding.gyp \
  && node -e "new (require('better-sqlite3'))(':memory:').prepare('select 1').get()" \
  && rm -rf /root/.npm

FROM ${NODE_IMAGE}
# The release's version (package.json's): the build refuses another one.
ARG VERSION=unknown
# Where the source is published, for the org.opencontainers.image.source label.
ARG SOURCE_URL=""
LABEL org.opencontainers.image.title="student-notification-service" \
      org.opencontainers.image.description="Wire-compatible re-implementation of the legacy Student Notification ASMX web service" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.source="${SOURCE_URL}" \
      org.opencontainers.image.licenses="UNLICENSED"

# A user of its own, not root; /data (the SQLite file) belongs to it, so a new
# named volume mounted there does too.
RUN useradd --system --uid 10001 --user-group --home-dir /app --no-create-home --shell /usr/sbin/nologin sns \
  && mkdir -p /data && chown sns:sns /data

WORKDIR /app
COPY --from=production-dependencies /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY wsdl ./wsdl
# The deliberate differences from ASMX, which `node dist/cli/compare.js` applies by default.
COPY docs/asmx-differences.yaml ./docs/asmx-differences.yaml
COPY scripts/healthcheck.js ./scripts/healthcheck.js
RUN node -e "const v=require('./package.json').version; if (!['unknown', v].includes(process.argv[1])) { console.error('VERSION ' + process.argv[1] + ' is not package.json\'s ' + v); process.exit(1); }" "$VERSION"

ENV NODE_ENV=production \
    DATA_DIR=/data \
    PORT=8080 \
    LOG_FORMAT=json
VOLUME ["/data"]
EXPOSE 8080
USER sns

# /healthz (liveness) from inside, by a small node script: no curl in the image.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 CMD ["node", "scripts/healthcheck.js"]

# node is PID 1: the service's own SIGTERM handler runs the graceful shutdown
# (docs/operating.md#graceful-shutdown). Give `podman stop` / compose a grace
# period longer than SHUTDOWN_TIMEOUT_MS + 2 s (for example --stop-timeout 15).
STOPSIGNAL SIGTERM
CMD ["node", "--max-semi-space-size=32", "dist/main.js"]
