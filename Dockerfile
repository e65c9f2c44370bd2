# syntax=docker/dockerfile:1
# Parley: build with the development dependencies, run with the production ones only.
#   docker build -t parley .
#   docker run -d -p 127.0.0.1:8787:8787 -v parley-data:/data parley
# compose.yaml runs it on SQLite, or on PostgreSQL behind Caddy.

# An exact release, so that a rebuild gets the same Node.js and Debian base; raise it on purpose.
# To pin the bytes too, append the digest that `docker buildx imagetools inspect
# node:22.21.1-bookworm-slim` prints (FROM node:22.21.1-bookworm-slim@sha256:…).
ARG NODE_VERSION=22.21.1

FROM node:${NODE_VERSION}-bookworm-slim AS build
WORKDIR /app
# better-sqlite3 compiles from source when no prebuilt binary matches the platform and Node version.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
# Dependencies first, in a layer of their own that source changes do not invalidate. The install
# scripts run once the sources are here (npm ci's prepare is the build, which needs them).
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund \
 && npm rebuild better-sqlite3 esbuild
COPY tsconfig.json ./
COPY bin ./bin
COPY scripts ./scripts
COPY src ./src
COPY web ./web
# The production dependencies only, and of the SQLite driver only what it loads (its build files,
# about 25 MB of sources and objects, stay in this stage).
RUN npm run build \
 && npm prune --omit=dev --no-audit --no-fund \
 && sh scripts/slim-sqlite-driver.sh node_modules/better-sqlite3

FROM node:${NODE_VERSION}-bookworm-slim
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8787 \
    DATA_DIR=/data
WORKDIR /app
# Owned by root and read-only to the user that runs the server: it never writes where it is installed.
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/bin ./bin
COPY --from=build /app/dist ./dist
# The store, the secrets file and backups live in the volume, private to the server's user.
RUN mkdir -p /data && chown node:node /data && chmod 700 /data
VOLUME ["/data"]
USER node
EXPOSE 8787
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT}/api/health`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# `docker run IMAGE backup /data/parley-backup.sqlite` runs another command of the CLI.
ENTRYPOINT ["node", "dist/parley.js"]
CMD ["serve"]
