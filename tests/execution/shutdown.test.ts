// Stopping a worker as an operator or an orchestrator does: a bad variable stops it with one line; SIGTERM
// to `npm run worker` reaches the worker itself; a drain takes one budget (AFK_DRAIN_S), not one per stage.
import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sub } from "../helpers/actors";
import { testContext } from "../helpers/context";
import { freshDatabase, type TestDb } from "../helpers/databases";
import { getRunRow } from "@/lib/db/runs";
import { startRun } from "@/lib/services/start";

const root = path.resolve(import.meta.dirname, "../..");
const pgUrl = process.env.TEST_POSTGRES_URL;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const WORKER = ["--conditions=react-server", "--import", "tsx", "scripts/worker.ts"];

function started(cmd: string, args: string[], env: Record<string, string>) {
  const child: ChildProcess = spawn(cmd, args, { cwd: root, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  const out = { stdout: "", stderr: "" };
  child.stdout?.on("data", (d) => (out.stdout += d));
  child.stderr?.on("data", (d) => (out.stderr += d));
  const exited = new Promise<number | null>((r) => child.on("exit", (code) => r(code)));
  return { child, out, exited };
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe("the worker entry", () => {
  it("a bad variable stops it with one line naming the variable, no stack trace", async () => {
    const w = started(process.execPath, WORKER, { DATABASE_URL: "postgresql://afk@127.0.0.1:1/afk", AFK_LEASE_S: "soon" });
    expect(await w.exited).toBe(1);
    const lines = w.out.stderr.trim().split("\n");
    expect(lines, w.out.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(/^Invalid environment variable AFK_LEASE_S: /);
  }, 60_000);
});

describe.skipIf(!pgUrl)("stopping a worker (PostgreSQL)", () => {
  let t: TestDb;
  beforeAll(async () => {
    t = await freshDatabase("postgresql");
  });
  afterAll(async () => t?.drop());

  it("SIGTERM to `npm run worker` stops the worker process itself", async () => {
    const w = started("npm", ["run", "worker"], { DATABASE_URL: t.url, AFK_WORKERS: "1", LOG_LEVEL: "info" });
    let pid = 0;
    try {
      await expect.poll(() => w.out.stdout + w.out.stderr, { timeout: 60_000, interval: 100 }).toContain('"worker started"');
      const line = (w.out.stdout + w.out.stderr).split("\n").find((l) => l.includes('"worker started"')) ?? "";
      const started = JSON.parse(line) as { pid: number; instance: string };
      pid = started.pid;
      expect(pid).not.toBe(w.child.pid);
      w.child.kill("SIGTERM");
      await w.exited;
      await expect.poll(() => alive(pid), { timeout: 10_000, interval: 100 }).toBe(false);
      // Its log names it as its runs' lease owner does (host:pid:random).
      expect(started.instance).toMatch(new RegExp(`:${pid}:[0-9a-f]{6}$`));
    } finally {
      if (pid && alive(pid)) process.kill(pid, "SIGKILL");
      if (w.child.exitCode === null) w.child.kill("SIGKILL");
    }
  }, 90_000);

  it("a run that outlasts the drain budget is handed back once the budget is spent, and the process exits", async () => {
    const DRAIN_S = 2;
    // Each demo model call takes 20 s: the run cannot pause or end within the budget.
    const w = started(process.execPath, WORKER, {
      DATABASE_URL: t.url,
      AFK_WORKERS: "1",
      AFK_DEMO_LATENCY_MS: "20000",
      AFK_DRAIN_S: String(DRAIN_S),
      LOG_LEVEL: "info",
    });
    const web = testContext(t.db, { queue: { url: t.url, concurrency: 0 } });
    try {
      await expect.poll(() => w.out.stdout + w.out.stderr, { timeout: 60_000, interval: 100 }).toContain('"worker started"');
      const { id } = await startRun(web, sub, { body: { agent: "order-status", input: { order_id: "ORD-12345" } } });
      await expect
        .poll(async () => (await getRunRow(t.db, id))?.leaseOwner ?? "queued", { timeout: 30_000, interval: 100 })
        .not.toBe("queued");
      const t0 = Date.now();
      w.child.kill("SIGTERM");
      const code = await Promise.race([w.exited, sleep(20_000).then(() => "still running")]);
      const tookS = (Date.now() - t0) / 1000;
      expect(code, w.out.stdout + w.out.stderr).toBe(0);
      // The budget, then closing the queue (a second or so) and exiting; before, a stage after the queue's
      // wait waited a budget of its own (20 s each, whatever AFK_DRAIN_S said).
      expect(tookS).toBeGreaterThanOrEqual(DRAIN_S);
      expect(tookS).toBeLessThan(DRAIN_S + 8);
      expect(w.out.stdout + w.out.stderr).toContain('"run handed back"');
      const row = await getRunRow(t.db, id);
      expect(row?.state).toBe("running");
      expect(Number(row?.leaseUntilMs)).toBeLessThan(Date.now());
    } finally {
      if (w.child.exitCode === null) w.child.kill("SIGKILL");
      await web.queue?.stop(2000);
    }
  }, 120_000);
});
