// The CLI on DATABASE_URL as a named user (--as / AFK_ACTOR): every command goes through the same service
// functions as the console's routes and server actions, so a run started here has its Run row and audit
// entry, a decision is checked against the user's role and routing, and resume/cancel/retry reserve the
// run with the same compare-and-set (a run another worker holds is refused, nothing written). Executions
// go through the context's dispatch: on SQLite they run in this process (the CLI waits for them), on
// PostgreSQL they are queued for the workers.
import { actorByEmail } from "../auth/actor.ts";
import { type AppContext, appContext } from "../context.ts";
import path from "node:path";
import { db } from "../db/client.ts";
import { backupSqliteFile, sqliteFileOf } from "../db/ops.ts";
import { env } from "../env.ts";
import { pruneCheckpoints } from "../execution/retention.ts";
import { sweep } from "../services/deadlines.ts";
import { failureOf } from "../failure.ts";
import { decide } from "../services/decide.ts";
import { listInbox } from "../services/inbox.ts";
import { cancelRun, forkRun, resumeRun, retryRun } from "../services/operate.ts";
import { getRunView, listRuns } from "../services/run-view.ts";
import { startRun } from "../services/start.ts";
import { timelinePage } from "../services/timeline.ts";
import { type Backend, CliError, pollUntilSettled, UsageError } from "./backend.ts";

/** A service's error as the CLI reports it: what a route would answer (lib/failure.ts), as one line. A 500 is
 * a bug and passes through with its stack. */
export function cliErrorOf(e: unknown): unknown {
  const f = failureOf(e);
  return f.status === 500 ? e : CliError.of(f.status, f.body);
}

async function mapped<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    throw cliErrorOf(e);
  }
}

function openContext(): AppContext {
  return appContext();
}

/** Lets what this process executes pause or end (SQLite), then closes the queue, the bus and the database. */
export async function closeContext(ctx: AppContext) {
  await ctx.worker.idle();
  await ctx.queue?.stop(5_000);
  await ctx.live.close();
  await ctx.db.$disconnect();
}

export async function localBackend(email: string): Promise<Backend> {
  // Who acts, before the context (and, on PostgreSQL, its queue) is built: an unknown user costs one read.
  const actor = await mapped(() => actorByEmail(db(), email)).catch(async (e) => {
    await db().$disconnect();
    throw e;
  });
  const ctx = openContext();
  const executesHere = env().databaseProvider === "sqlite";
  const show = (runId: string) => mapped(() => getRunView(ctx, actor, { runId }));
  return {
    describe: `${actor.email} (${actor.role}) on ${env().databaseProvider}`,
    executesHere,
    start: (agent, input, opts) =>
      mapped(() => startRun(ctx, actor, { body: { agent, input }, idempotencyKey: opts.idempotencyKey ?? null })),
    runs: (query) => mapped(() => listRuns(ctx, actor, { query })),
    show,
    checkpoints: (runId, query) => mapped(() => timelinePage(ctx, actor, { runId, query })),
    inbox: (query) => mapped(() => listInbox(ctx, actor, { query })),
    decide: (approvalId, body) => mapped(() => decide(ctx, actor, { approvalId, body })),
    resume: (runId) => mapped(() => resumeRun(ctx, actor, { runId })),
    cancel: (runId) => mapped(() => cancelRun(ctx, actor, { runId })),
    retry: (runId) => mapped(() => retryRun(ctx, actor, { runId })),
    fork: (runId, seq) => mapped(() => forkRun(ctx, actor, { runId, body: { seq } })),
    async wait(runId, timeoutMs) {
      // On SQLite the run executes here: its execution ends when it pauses or ends.
      await ctx.worker.idle();
      return pollUntilSettled(() => show(runId), timeoutMs);
    },
    close: () => closeContext(ctx),
  };
}

// Maintenance on the database itself, as the system (no user): what every instance's background does.
export async function pruneLocal(days: number) {
  const ctx = openContext();
  try {
    return await pruneCheckpoints(ctx.db, { olderThanDays: days });
  } finally {
    await closeContext(ctx);
  }
}

export async function sweepLocal() {
  const ctx = openContext();
  try {
    return await sweep(ctx);
  } finally {
    await closeContext(ctx);
  }
}

export const retentionDays = () => env().AFK_RETENTION_DAYS;

/** An online backup of the SQLite database to `file` (a new file); PostgreSQL is backed up with pg_dump. */
export async function backupLocal(file: string) {
  const e = env();
  if (e.databaseProvider === "postgresql")
    throw new UsageError(
      'backup copies a SQLite file; back PostgreSQL up with pg_dump while it runs: pg_dump --format=custom --file <file> "$DATABASE_URL" (docs/operating.md, "Back up and restore")',
    );
  return backupSqliteFile(sqliteFileOf(e.DATABASE_URL), path.resolve(file));
}
