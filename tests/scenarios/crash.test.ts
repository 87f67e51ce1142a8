// Crash a real refund-desk run with SIGKILL at every checkpoint boundary (AFK_FAILPOINT), resume it in a
// new process, approve where needed, and compare with an uncrashed run.
import { spawnSync } from "node:child_process";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundledEntry } from "../helpers/bundled-entry";
import { freshDatabase, providers, type TestDb } from "../helpers/databases";
import { PrismaStore } from "@/lib/db/store";
import { approvalIdOf, decideApproval, listApprovals, listCheckpoints } from "@/lib/runner";
import { createRuntime } from "@/lib/runtime";

const root = path.resolve(import.meta.dirname, "../..");
const INPUT = JSON.stringify({ order_id: "ORD-12345", amount_cents: 7500, reason: "arrived broken" });

let entry = "";
beforeAll(async () => {
  entry = await bundledEntry("tests/helpers/runner-process.ts");
});

// The runner driven directly in a child process (tests/helpers/runner-process.ts), so that a failpoint's
// SIGKILL takes the whole process down and the next one starts from what is durable.
function runnerProcess(url: string, args: string[], failpoint?: string) {
  // One node process on a pre-bundled entry (tests/helpers/bundled-entry.ts): this file starts over a
  // hundred of them and is the longest of the suite; start-up under tsx's loader was half of each one's CPU.
  const r = spawnSync(process.execPath, ["--conditions=react-server", entry, ...args], {
    cwd: root,
    encoding: "utf8",
    // The demo tools ignore their idempotency key here: every execution writes a row, so the counts below
    // are executions, and exactly-once must come from the runner's effect journal alone.
    env: { ...process.env, DATABASE_URL: url, AFK_FAILPOINT: failpoint ?? "", AFK_DEMO_TOOLS_IDEMPOTENT: "0" },
  });
  return {
    killed: r.signal === "SIGKILL" || r.status === 137,
    status: r.status,
    out: r.stdout,
    err: r.stderr,
    result: r.status === 0 ? JSON.parse(r.stdout) : null,
  };
}

describe.each(providers)("crash at every boundary on %s", (provider) => {
  let t: TestDb;
  beforeAll(async () => {
    t = await freshDatabase(provider);
  });
  afterAll(() => t?.drop());

  async function approveAll(runId: string) {
    const rt = createRuntime(t.db);
    for (const a of await listApprovals(rt.store, runId, runId)) {
      if (a.status !== "pending") continue;
      const tool = rt.agent("refund-desk").tools.find((x) => x.name === a.tool_name);
      const edit = a.tool_name === "issue_refund" ? { ...a.args, amount_cents: 6000 } : undefined;
      await decideApproval(rt.store, runId, await approvalIdOf(rt.store, runId, runId, a.tool_call_id), tool, {
        by: "reviewer@example.com",
        decision: "approve",
        args: edit,
      });
    }
  }

  // Drives a run to its end: process 0 starts it, then resume/approve; failAt = [process index, failpoint].
  async function drive(runId: string, failAt?: [number, string]) {
    let proc = 0;
    const fp = (i: number) => (failAt && failAt[0] === i ? failAt[1] : undefined);
    let r = runnerProcess(t.url, ["run", "refund-desk", "--input", INPUT, "--run-id", runId], fp(proc));
    let killed = r.killed;
    for (let guard = 0; guard < 10; guard++) {
      if (r.result?.state === "completed") return { result: r.result, killed };
      if (r.result?.state === "paused") {
        await approveAll(runId);
        proc++;
      } else if (!r.killed) throw new Error(`unexpected: ${r.status} ${r.err}`);
      r = runnerProcess(t.url, ["resume", runId], r.killed ? undefined : fp(proc));
      killed ||= r.killed;
    }
    throw new Error("run did not finish");
  }

  it("ends every crashed run like the uncrashed one, with each side effect exactly once", async () => {
    const baseline = await drive("base");
    expect(baseline.result.state).toBe("completed");
    const store = new PrismaStore(t.db);
    const cps = await listCheckpoints(store, "base", "base");
    // The boundaries of each process of the uncrashed run, in order (process 1 starts at `resumed`).
    const boundaries: [number, string, number][] = [];
    let proc = 0;
    const seen = new Set<string>();
    for (const c of cps) {
      if (c.phase === "resumed") proc++;
      const fp = `${c.phase}:${c.step}`;
      if (seen.has(`${proc}:${fp}`) || (c.phase === "paused" && seen.has(`${proc}:paused:${c.step}`))) continue;
      seen.add(`${proc}:${fp}`);
      boundaries.push([proc, c.phase, c.step]);
    }
    const table: string[] = [];
    for (const [i, [p, phase, step]] of boundaries.entries()) {
      const runId = `crash${i}`;
      const { result, killed } = await drive(runId, [p, `${phase}:${step}:kill`]);
      expect(killed, `${phase}:${step} in process ${p} was not crossed`).toBe(true);
      expect(result.finalText).toBe(baseline.result.finalText);
      expect(result.finalStructured).toEqual(baseline.result.finalStructured);
      const refunds = await t.db.refund.findMany({ where: { runId } });
      const outbox = await t.db.outboxMessage.count({ where: { runId } });
      expect(refunds.map((r) => r.amountCents)).toEqual([6000]);
      expect(outbox).toBe(1);
      const runCps = await listCheckpoints(store, runId, runId);
      const postLlm = runCps.filter((c) => c.phase === "post_llm").map((c) => c.step);
      expect(postLlm, "an LLM response was asked for twice").toEqual([...new Set(postLlm)]);
      table.push(
        `${String(i).padStart(2)}  process ${p}  ${`${phase}:${step}`.padEnd(22)} killed  refunds=${refunds.length} outbox=${outbox} llm_steps=${postLlm.join(",")} replayed=${result.stateSnapshot.replayedEffectCount}`,
      );
    }
    console.log(`[${provider}] boundaries crossed (SIGKILL, then resume in a new process):\n${table.join("\n")}`);
    expect(boundaries.length).toBeGreaterThanOrEqual(18);
  }, 600_000);
});
