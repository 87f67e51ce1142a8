// Back up while the console runs, restore into a fresh database, go on from there. Three runs at the
// moment of the backup: P paused on a charge (its note already done), R in the middle of a model call
// (its note done), B taking step after step (writes all the time). SQLite is backed up by the real CLI
// (`afk backup <file>`, SQLite's online backup API) from another process; PostgreSQL with pg_dump, as the
// docs/operating.md says. The backup is restored into a fresh database, and a console on it resumes the runs as a
// restarted instance would: P is approved and resumed, R and B go on from their latest checkpoints. The
// tools count their executions per database and do not de-duplicate: nothing done before the backup is
// done again after the restore, and nothing is lost (P's charge runs once, R and B complete).
import { execFile, execFileSync, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { copyFileSync, existsSync, rmSync, statSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { rev, sub } from "../helpers/actors";
import { testContext } from "../helpers/context";
import { freshDatabase, providers, type TestDb } from "../helpers/databases";
import { scriptedModel } from "../helpers/scripted-model";
import type { AppContext } from "@/lib/context";
import { createDb, type Db } from "@/lib/db/client";
import { getRunRow } from "@/lib/db/runs";
import { type Agent, approvalId, defineTool, type ModelAdapter } from "@/lib/runner";
import { decide } from "@/lib/services/decide";
import { startRun } from "@/lib/services/start";

const root = path.resolve(import.meta.dirname, "../..");
const pgBase = process.env.TEST_POSTGRES_URL;
const run = promisify(execFile);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
function resolvers() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

// One database's world: its tools count their executions (by idempotency key, i.e. by call) and its model
// scripts the three agents; R's second model call can be held open.
function world(name: string) {
  const executions = new Map<string, number>();
  const counted = (tool: string) =>
    defineTool({
      name: tool,
      description: tool,
      schema: z.object({}),
      async execute(_a, ctx) {
        executions.set(`${tool}@${ctx.idempotencyKey}`, (executions.get(`${tool}@${ctx.idempotencyKey}`) ?? 0) + 1);
        return { ok: true };
      },
    });
  const note = counted("note");
  const charge = counted("charge");
  const tick = counted("tick");
  const gate = { held: false, entered: resolvers(), release: resolvers(), busy: true };
  const model: ModelAdapter = scriptedModel(`w${name}`, async (turn, req) => {
    const kind = String(req.messages.find((m) => m.role === "user")?.content);
    if (kind === "busy") {
      await sleep(20);
      return gate.busy ? { text: "tick", calls: [{ id: `t${turn}`, name: "tick", args: {} }] } : { text: "done" };
    }
    if (turn === 1)
      return {
        text: "note first",
        calls:
          kind === "paused"
            ? [
                { id: "n1", name: "note", args: {} },
                { id: "c1", name: "charge", args: {} },
              ]
            : [{ id: "n1", name: "note", args: {} }],
      };
    if (kind === "running" && gate.held) {
      gate.entered.resolve();
      await gate.release.promise;
    }
    return { text: "done" };
  });
  const agent: Agent = {
    name: "ledger",
    model: `w${name}:m`,
    instructions: "",
    tools: [note, charge, tick],
    policy: [{ id: "charges", tool: "charge", action: "require_approval" }],
    // B steps until the backup is taken (a few seconds).
    failSafe: { maxSteps: 10_000, maxLlmCalls: 10_000, maxToolCalls: 10_000 },
    inputSchema: z.object({ kind: z.string() }),
    toUserMessage: (input) => String(input.kind),
  };
  const count = (tool: string, runId: string) =>
    [...executions].filter(([k]) => k.startsWith(`${tool}@`) && k.includes(runId)).reduce((a, [, n]) => a + n, 0);
  return { executions, gate, model, agent, count, models: { [`w${name}`]: model } };
}

async function backUp(t: TestDb, file: string) {
  if (t.name === "sqlite") {
    // The CLI, as an operator runs it next to the console: another process, on the live file.
    const { stdout } = await run(process.execPath, ["--conditions=react-server", "--import", "tsx", "scripts/afk.ts", "backup", file], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: t.url },
    });
    expect(stdout).toMatch(/Backed up .* integrity checked/);
  } else await run("pg_dump", ["--format=custom", "--file", file, t.url]);
  expect(statSync(file).size).toBeGreaterThan(0);
}

// The restore as docs/operating.md says it: SQLite, the file copied in place of a stopped database; PostgreSQL,
// pg_restore into a new, empty database. Then the migrations (npm start applies them: none is pending).
async function restore(t: TestDb, file: string): Promise<{ url: string; db: Db; drop: () => Promise<void> }> {
  const id = randomBytes(4).toString("hex");
  let url: string;
  let dropDb: () => Promise<void>;
  if (t.name === "sqlite") {
    const rel = `./data/test/restored-${id}.db`;
    copyFileSync(file, path.join(root, rel));
    url = `file:${rel}`;
    dropDb = async () => {
      for (const s of ["", "-wal", "-shm"]) rmSync(path.join(root, rel + s), { force: true });
    };
  } else {
    const name = `afk_restored_${id}`;
    const admin = new pg.Client({ connectionString: pgBase });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    const u = new URL(pgBase!);
    u.pathname = `/${name}`;
    url = u.toString();
    await run("pg_restore", ["--dbname", url, "--no-owner", file]);
    dropDb = async () => {
      const c = new pg.Client({ connectionString: pgBase });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    };
  }
  const config = t.name === "sqlite" ? "prisma.config.ts" : "prisma.postgres.config.ts";
  const out = execFileSync(path.join(root, "node_modules/.bin/prisma"), ["migrate", "deploy", "--config", config], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: url },
  }).toString();
  expect(out).toMatch(/No pending migrations to apply/);
  const db = createDb(url);
  return {
    url,
    db,
    drop: async () => {
      await db.$disconnect();
      await dropDb();
    },
  };
}

// PostgreSQL is backed up with pg_dump and pg_restore (installed with PostgreSQL's server, which npm test
// starts); against a server of one's own without its client tools, only SQLite is tested.
const hasPgTools = spawnSync("pg_dump", ["--version"]).status === 0 && spawnSync("pg_restore", ["--version"]).status === 0;

describe.each(providers.filter((p) => p === "sqlite" || hasPgTools))(
  "backup and restore while runs are paused and running (%s)",
  (provider) => {
    const cleanup: (() => Promise<unknown>)[] = [];
    afterAll(async () => {
      for (const c of cleanup.reverse()) await c().catch(() => undefined);
    });

    it("a paused run resumes from the restored database with its effects neither lost nor repeated", async () => {
      const t = await freshDatabase(provider);
      cleanup.push(() => t.drop());
      const file = path.join(root, `data/test/backup-${randomBytes(4).toString("hex")}.${provider === "sqlite" ? "db" : "dump"}`);
      cleanup.push(async () => rmSync(file, { force: true }));

      // The console as it runs: P pauses; R stops in its second model call; B keeps stepping.
      const before = world("a");
      const A: AppContext = testContext(t.db, { agents: { ledger: before.agent }, models: before.models, leaseMs: 3_000 });
      const start = async (ctx: AppContext, kind: string) => (await startRun(ctx, sub, { body: { agent: "ledger", input: { kind } } })).id;
      const P = await start(A, "paused");
      await A.worker.idle();
      expect((await getRunRow(t.db, P))?.state).toBe("paused");
      before.gate.held = true;
      const R = await start(A, "running");
      await before.gate.entered.promise;
      const B = await start(A, "busy");
      while (before.count("tick", B) < 5) await sleep(20);
      await sleep(100); // R's checkpoints before its model call are written

      await backUp(t, file);
      expect((await getRunRow(t.db, R))?.state).toBe("running");
      expect((await getRunRow(t.db, B))?.state, (await getRunRow(t.db, B))?.error ?? "").toBe("running");
      // The original goes on by itself; what it does after the backup is not in the backup.
      before.gate.release.resolve();
      before.gate.busy = false;
      await A.worker.idle();
      expect(before.count("note", P)).toBe(1);
      expect(before.count("note", R)).toBe(1);
      expect(before.count("charge", P)).toBe(0);
      expect((await getRunRow(t.db, B))?.state).toBe("completed");

      // Restored into a fresh database, a console on it: what it finds is the moment of the backup.
      const r = await restore(t, file);
      cleanup.push(r.drop);
      const after = world("b");
      after.gate.busy = false;
      const C: AppContext = testContext(r.db, { agents: { ledger: after.agent }, models: after.models, leaseMs: 3_000 });
      expect((await getRunRow(r.db, P))?.state).toBe("paused");
      expect((await getRunRow(r.db, R))?.state).toBe("running");
      expect((await getRunRow(r.db, B))?.state).toBe("running");
      // As a restarted instance would: SQLite recovers what was running at start; on PostgreSQL the sweep
      // takes the runs over once their leases (held by the instance of the backup) have expired.
      if (provider === "sqlite") expect(await C.executor.recover()).toBe(2);
      else {
        const until = Number((await getRunRow(r.db, R))?.leaseUntilMs ?? 0);
        await sleep(Math.max(0, until - Date.now()) + 200);
        expect(await C.executor.takeOverExpired()).toBe(2);
      }
      await C.worker.idle();
      expect((await getRunRow(r.db, R))?.state).toBe("completed");
      expect((await getRunRow(r.db, B))?.state).toBe("completed");

      expect((await decide(C, rev, { approvalId: approvalId(P, 1, "c1"), body: { decision: "approve" } })).resumed).toBe(true);
      await C.worker.idle();
      expect((await getRunRow(r.db, P))?.state).toBe("completed");
      // Neither repeated (the notes and ticks done before the backup are replayed, not run) nor lost (the
      // charge approved after the restore runs, once).
      expect(after.count("note", P)).toBe(0);
      expect(after.count("note", R)).toBe(0);
      expect(after.count("charge", P)).toBe(1);
      // B was stepping at the moment of the backup: a tick that had run but whose effect was not yet written
      // runs again (the one window of at-least-once docs/operating.md describes, for a tool that ignores its
      // idempotency key); no other.
      expect(after.count("tick", B)).toBeLessThanOrEqual(1);
      expect(existsSync(file)).toBe(true);
    }, 240_000);

    it("the CLI's backup refuses a file that exists (SQLite) and names pg_dump on PostgreSQL", async () => {
      const t = await freshDatabase(provider);
      cleanup.push(() => t.drop());
      const file = path.join(root, `data/test/exists-${randomBytes(4).toString("hex")}.db`);
      copyFileSync(path.join(root, "package.json"), file);
      cleanup.push(async () => rmSync(file, { force: true }));
      const failed = await run(process.execPath, ["--conditions=react-server", "--import", "tsx", "scripts/afk.ts", "backup", file], {
        cwd: root,
        env: { ...process.env, DATABASE_URL: t.url },
      }).then(
        () => null,
        (e: { code: number; stderr: string }) => e,
      );
      if (provider === "sqlite") expect(failed).toMatchObject({ code: 1, stderr: expect.stringMatching(/exists: back up to a new file/) });
      else expect(failed).toMatchObject({ code: 2, stderr: expect.stringMatching(/pg_dump --format=custom/) });
    }, 120_000);
  },
);
