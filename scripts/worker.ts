// npm run worker — a standalone worker for PostgreSQL deployments: works the run queue, takes over runs
// whose worker died, sweeps deadlines. Same DATABASE_URL (and code) as the app instances.
import { env } from "../lib/env.ts";
import { log } from "../lib/log.ts";
import { startBackground } from "../lib/runs/background.ts";
import { queue } from "../lib/runs/instance.ts";

if (env().databaseProvider !== "postgresql") {
  console.error("npm run worker needs DATABASE_URL=postgresql://…; with SQLite the app runs its runs itself.");
  process.exit(2);
}
startBackground({ workers: true });
await queue()!.ready();
log.info("worker started", { pid: process.pid, concurrency: env().AFK_WORKERS });
// Keep the process alive; the queue's workers and timers do the work.
setInterval(() => undefined, 1 << 30);
