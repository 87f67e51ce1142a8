// npm run worker — a standalone worker for PostgreSQL deployments: works the run queue, takes over runs
// whose worker died, sweeps deadlines. Same DATABASE_URL (and code) as the app instances.
// First: a bad environment stops the worker with one line naming the variable, as the server does.
import "../lib/startup.ts";
import { appContext } from "../lib/context.ts";
import { env } from "../lib/env.ts";
import { startBackground } from "../lib/ops/background.ts";
import { log } from "../lib/log.ts";
import { startTracing } from "../lib/telemetry/sdk.ts";

if (env().databaseProvider !== "postgresql") {
  console.error("npm run worker needs DATABASE_URL=postgresql://…; with SQLite the app runs its runs itself.");
  process.exit(2);
}
// Before the context opens the database: its statements are traced too.
await startTracing("afk-worker", env());
startBackground();
await appContext().queue!.ready();
log.info("worker started", { pid: process.pid, instance: appContext().worker.instanceId, concurrency: env().AFK_WORKERS });
// Keep the process alive; the queue's workers and timers do the work.
setInterval(() => undefined, 1 << 30);
