// PostgreSQL stopped in the middle of a run, then started again: the run stops at its last durable
// checkpoint with the store error recorded, nothing a reviewer decided is lost, and a retry completes it
// with every side effect exactly once. Uses its own throwaway cluster (it is stopped on purpose).
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scratchDatabase, type ScratchDb } from "../helpers/scratch";
import { testContext } from "../helpers/context";
import { decide } from "@/lib/services/decide";
import { retryRun } from "@/lib/services/operate";
import { getRunView } from "@/lib/services/run-view";
import { startRun } from "@/lib/services/start";
import { sweep } from "@/lib/services/deadlines";
import { listApprovals, listCheckpoints } from "@/lib/runner";
import { op, rev, sub } from "../helpers/actors";

const pgBin = existsSync("/usr/lib/postgresql")
  ? readdirSync("/usr/lib/postgresql")
      .sort()
      .map((v) => `/usr/lib/postgresql/${v}/bin`)
      .at(-1)
  : undefined;
const enabled = !!process.env.TEST_POSTGRES_URL && !!pgBin;
// A port of its own that nothing listens on now (a fixed or random one can be taken by another test's
// cluster or by a client's ephemeral port), found by letting the kernel pick it.
const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as AddressInfo;
      srv.close(() => resolve(port));
    });
  });
const asPg = (cmd: string, args: string[]) =>
  process.getuid?.() === 0
    ? execFileSync("runuser", ["-u", "postgres", "--", cmd, ...args], { stdio: "pipe" })
    : execFileSync(cmd, args, { stdio: "pipe" });

describe.skipIf(!enabled)("PostgreSQL stopped mid-run", () => {
  let dir: string;
  let port: number;
  let s: ScratchDb;
  const pgctl = (...args: string[]) => asPg(`${pgBin}/pg_ctl`, ["-D", dir, ...args]);
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "afk-fault-pg-"));
    // The port can still be taken between the check and the server's bind: a second one is tried then.
    let url = "";
    for (let attempt = 1; !url; attempt++) {
      port = await freePort();
      try {
        url = execFileSync("bash", [".ci/pg-start.sh"], {
          env: { ...process.env, PGPORT: String(port), PGDIR: dir, PGDIR_FILE: path.join(dir, "pgdir-file") },
        })
          .toString()
          .trim();
      } catch (e) {
        if (attempt >= 3) throw e;
        rmSync(dir, { recursive: true, force: true });
        dir = mkdtempSync(path.join(tmpdir(), "afk-fault-pg-"));
      }
    }
    s = await scratchDatabase("postgresql", url, "afk_fault");
  });
  afterAll(async () => {
    // The cluster is thrown away below, so the database is not dropped; the client gets 5 s to let go.
    await Promise.race([s?.db.$disconnect().catch(() => undefined), new Promise((r) => setTimeout(r, 5000))]);
    try {
      pgctl("-m", "immediate", "stop");
    } catch {
      // pg_ctl refused (or it is stopped already): make sure no server is left running.
      try {
        const pid = Number(readFileSync(path.join(dir, "postmaster.pid"), "utf8").split("\n")[0]);
        if (pid) process.kill(pid, "SIGKILL");
      } catch {
        /* no server */
      }
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it("stops at a durable checkpoint with the error, keeps the decision, and a retry completes once", async () => {
    const ctx = testContext(s.db, { demoLatencyMs: 1500 });
    const { id } = await startRun(ctx, sub, {
      body: {
        agent: "deploy-bot",
        input: { service: "db", version: "1.0.0", environment: "staging" },
      },
    });
    await ctx.worker.idle();
    await decide(ctx, rev, {
      approvalId: `${id}:2:call_deploy`,
      body: {
        decision: "approve",
        args: { service: "db", version: "1.0.1", environment: "staging" },
      },
    });
    // deploy-bot resumes by itself: the deploy runs, then the step-3 model call takes 1.5 s. Stop the
    // database during that call.
    await expect.poll(async () => s.db.deployment.count({ where: { runId: id } }), { timeout: 10_000, interval: 50 }).toBe(1);
    pgctl("-m", "immediate", "stop");
    await new Promise((r) => setTimeout(r, 2500));
    pgctl("-w", "-l", path.join(dir, "log"), "-o", `-c listen_addresses=127.0.0.1 -p ${port} -k ${dir}`, "start");
    await ctx.worker.idle();

    const stopped = await getRunView(ctx, op, { runId: id });
    expect(stopped.run.state).toBe("failed");
    expect(stopped.run.error).toMatch(/CheckpointWriteError/);
    const cps = await listCheckpoints(ctx.store, id, id);
    expect(cps.map((c) => c.phase)).not.toContain("run_terminal");
    // The reviewer's edited approval is still there, exactly as decided.
    const [approval] = await listApprovals(ctx.store, id, id);
    expect(approval).toMatchObject({ status: "approved", approved_args: { version: "1.0.1" } });

    // The sweep (every instance runs it) retries a run stopped by a store fault once the database answers.
    expect((await sweep(ctx)).retried).toBe(1);
    await ctx.worker.idle();
    expect(await retryRun(ctx, op, { runId: id }).catch((e) => e.status)).toBe(409);
    const done = await getRunView(ctx, op, { runId: id });
    expect(done.run.state).toBe("completed");
    expect(await s.db.deployment.count({ where: { runId: id } })).toBe(1);
    const after = await listCheckpoints(ctx.store, id, id);
    const postLlm = after.filter((c) => c.phase === "post_llm").map((c) => c.step);
    expect(new Set(postLlm).size).toBe(postLlm.length);
  }, 90_000);
});
