# The console's image: built by scripts/bundle.mjs in a build stage; the runtime stage copies only the
# bundle's folder and runs as the unprivileged `node` user. One image serves the web app (default command),
# the worker (`node worker.mjs`) and migrations (`node scripts/db.mjs deploy`). Node 24, the current LTS: CI
# starts the bundle on it (scripts/bundle-node.mjs); Node 20 is past its end of life.
FROM node:24-bookworm-slim AS build
WORKDIR /src
# better-sqlite3 compiles from source when no prebuilt binary fits.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
COPY scripts ./scripts
COPY prisma ./prisma
COPY prisma.config.ts prisma.postgres.config.ts ./
RUN npm ci
COPY . .
RUN node scripts/bundle.mjs --out /out

FROM node:24-bookworm-slim
# NEXT_MANUAL_SIG_HANDLE: only the console's SIGTERM handler runs (readiness 503, drain, exit 0); Next's
# own would exit with 143 before the drain. SQLite's file (and the NEXTAUTH_SECRET generated when none is
# given) live in /data: mount a volume there. PostgreSQL: set DATABASE_URL to it (compose.yaml does).
ENV NODE_ENV=production PORT=3000 HOSTNAME=0.0.0.0 NEXT_TELEMETRY_DISABLED=1 NEXT_MANUAL_SIG_HANDLE=true \
  DATABASE_URL=file:/data/afk.db AFK_DATA_DIR=/data
WORKDIR /app
# Root-owned: the app's own files are read-only to the user it runs as; only /data is its to write.
COPY --from=build /out ./
RUN mkdir -p /data && chown node:node /data
USER node
EXPOSE 3000
HEALTHCHECK --interval=15s --timeout=3s --start-period=20s \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/api/health/live').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# On SQLite the migrations first, then the web server (scripts/start.mjs); the first admin:
# docker exec -i <container> node scripts/afk.mjs users create --email you@example.com --role admin --password-stdin
CMD ["node", "scripts/start.mjs"]
