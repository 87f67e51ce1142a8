// The CLI as a user runs it: the real process (scripts/afk.ts, compiled to one file for this test file by
// tests/helpers/bundled-entry.ts) on a scratch database, acting as a named user through the services. A run
// it starts has its Run row and audit entries; a run another worker holds cannot be resumed from it (409,
// nothing written); --json parses; an error is one line, exit ≠ 0.
// On PostgreSQL the CLI only enqueues: a worker (here, in this process) executes the run.
import { execFile } from "node:child_process";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { bundledEntry } from "../helpers/bundled-entry";
import { freshDatabase, providers, type TestDb } from "../helpers/databases";
import { claimReserved, reserveRun } from "@/lib/db/runs";
import { testContext } from "../helpers/context";
import type { AppContext } from "@/lib/context";
import type { RunView } from "@/lib/dto";

const root = path.resolve(import.meta.dirname, "../..");
// Every step is a whole CLI process (seconds each on a loaded machine).
vi.setConfig({ testTimeout: 300_000 });
const INPUT = JSON.stringify({ order_id: "ORD-12345", amount_cents: 9000, reason: "arrived broken" });
type Out = { code: number; out: string; err: string };

async function afk(url: string, args: string[], env: Record<string, string> = {}): Promise<Out> {
  // Pre-bundled, not through tsx's loader: the loader was half of each process's start-up.
  const entry = await bundledEntry("scripts/afk.ts");
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["--conditions=react-server", entry, ...args],
      // Nothing inherited that would pick the mode: the test says where and as whom.
      { cwd: root, env: { ...process.env, DATABASE_URL: url, AFK_URL: "", AFK_TOKEN: "", AFK_ACTOR: "", ...env }, timeout: 120_000 },
      (error, stdout, stderr) => resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, out: stdout, err: stderr }),
    );
  });
}

const json = <T>(r: Out): T => {
  expect(r.code, r.err).toBe(0);
  return JSON.parse(r.out) as T;
};

describe.each(providers)("the CLI on %s", (provider) => {
  let t: TestDb;
  let worker: AppContext | null = null;
  const run = (args: string[], env: Record<string, string> = {}) => afk(t.url, args, env);

  beforeAll(async () => {
    t = await freshDatabase(provider);
    for (const [email, role, disabled] of [
      ["submitter@example.com", "submitter", false],
      ["reviewer@example.com", "reviewer", false],
      ["operator@example.com", "operator", false],
      ["gone@example.com", "reviewer", true],
    ] as const)
      await t.db.user.create({ data: { email, name: email.split("@")[0], role, disabled, passwordHash: "-" } });
  });
  afterAll(async () => {
    await worker?.queue?.stop(5_000);
    await worker?.worker.idle();
    await t?.drop();
  });

  // SQLite: the CLI executes the run itself (one instance). PostgreSQL: it only enqueues it, and the
  // workers execute it; the first such test starts one here.
  async function settledRun(id: string): Promise<RunView> {
    let view: RunView;
    do {
      view = json<RunView>(await run(["show", id, "--json", "--as", "submitter@example.com"]));
    } while (view.run.state === "running" || view.run.state === "pending");
    return view;
  }

  let runId = "";
  it("starts a run with a Run row and an audit entry naming the user; it is listed", async () => {
    const started = await run(["start", "refund-desk", "--input", INPUT, "--json", "--as", "submitter@example.com"]);
    const { id, replayed } = json<{ id: string; replayed: boolean }>(started);
    expect(replayed).toBe(false);
    runId = id;
    const row = await t.db.run.findUniqueOrThrow({ where: { id } });
    expect(row).toMatchObject({ agentName: "refund-desk", submittedByEmail: "submitter@example.com" });
    if (provider === "sqlite") {
      // Executed in the CLI's own process, to its pause, before the CLI exited.
      expect(row.state).toBe("paused");
    } else {
      // Reserved and queued; no worker took it (the CLI never works the queue).
      expect(row).toMatchObject({ state: "running", leaseOwner: "queued" });
      const jobs = await t.db.$queryRawUnsafe<{ n: bigint }[]>(
        `SELECT count(*) AS n FROM pgboss.job WHERE name = 'afk-run' AND data->>'runId' = $1`,
        id,
      );
      expect(Number(jobs[0].n)).toBe(1);
      worker = testContext(t.db, { queue: { url: t.url, concurrency: 2 } });
      await worker.queue!.work(worker.worker);
    }
    const view = await settledRun(id);
    expect(view.run.state).toBe("paused");
    expect(view.approvals.map((a) => [a.tool_name, a.status])).toEqual([
      ["issue_refund", "pending"],
      ["notify_customer", "pending"],
    ]);
    const audit = await t.db.auditEvent.findMany({ where: { targetId: id } });
    expect(audit.map((a) => [a.action, a.actorEmail])).toEqual([["run.start", "submitter@example.com"]]);

    const listed = json<{ runs: { id: string; state: string }[] }>(await run(["runs", "--json", "--as", "operator@example.com"]));
    expect(listed.runs.find((r) => r.id === id)?.state).toBe("paused");
    // Readable by default: a table with a header, ISO times, the state in words.
    const table = await run(["runs", "--as", "operator@example.com"]);
    expect(table.out.split("\n")[0]).toMatch(/^RUN\s+AGENT\s+STATE\s+STEP\s+SUBMITTED BY\s+CREATED$/);
    expect(table.out).toMatch(new RegExp(`${id}\\s+refund-desk\\s+paused\\s+2\\s+submitter@example.com\\s+\\d{4}-\\d\\d-\\d\\dT`));
    const shown = await run(["show", id, "--as", "reviewer@example.com"]);
    expect(shown.out).toMatch(/state\s+paused: waiting for 2 decisions/);
    expect(shown.out).not.toMatch(/finalText|_ms"/);
    // Each approval's arguments as the console's cards read them.
    expect(shown.out).toMatch(/issue_refund\s+tool\s+pending\s+\S+\s+Order id: ORD-\d+ · Amount: €[\d,]+\.\d\d · Reason: /);
  });

  it("decides through the services: checked, audited under the reviewer", async () => {
    const inbox = json<{ approvals: { id: string; runId: string; tool: string }[] }>(
      await run(["inbox", "--json", "--as", "reviewer@example.com"]),
    );
    const mine = inbox.approvals.filter((a) => a.runId === runId);
    // By tool: the inbox lists oldest first, and two requests of one step made in the same millisecond by key.
    expect(mine.map((a) => a.tool).sort()).toEqual(["issue_refund", "notify_customer"]);
    const [refund, notify] = ["issue_refund", "notify_customer"].map((tool) => mine.find((a) => a.tool === tool)!.id);
    // The submitter may not decide (role) — one line, exit 1, nothing recorded.
    const refused = await run(["approve", refund, "--as", "submitter@example.com"]);
    expect(refused.code).toBe(1);
    expect(refused.err.trim().split("\n")).toHaveLength(1);
    expect(refused.err).toMatch(/^afk: .*\(403\)$/m);
    const edited = await run([
      "approve",
      refund,
      "--args",
      JSON.stringify({ order_id: "ORD-12345", amount_cents: 6000, reason: "arrived broken" }),
      "--as",
      "reviewer@example.com",
    ]);
    expect(edited.code, edited.err).toBe(0);
    expect(edited.out).toContain(`Approved ${refund} (issue_refund): approved`);
    expect(edited.out).not.toContain("resumes");
    const rejected = json<{ approval: { status: string }; resumed: boolean }>(
      await run(["reject", notify, "--reason", "we call them", "--json", "--as", "reviewer@example.com"]),
    );
    expect(rejected.approval.status).toBe("rejected");
    // The rejection completed the step: the run resumes by itself, from the CLI as from the browser.
    expect(rejected.resumed).toBe(true);
    const audit = await t.db.auditEvent.findMany({ where: { targetId: runId }, orderBy: { at: "asc" } });
    // The resume is written in the decision's transaction (the same millisecond): compared as a set.
    expect(audit.map((a) => `${a.action} ${a.actorEmail}`).sort()).toEqual([
      "approval.edit_approve reviewer@example.com",
      "approval.reject reviewer@example.com",
      "run.auto_resume null",
      "run.start submitter@example.com",
    ]);
    const done = await settledRun(runId);
    expect(done.run.state).toBe("completed");
    expect((await t.db.refund.findMany({ where: { runId } })).map((x) => x.amountCents)).toEqual([6000]);
  });

  it("refuses to resume a run another worker holds: 409 with its state, nothing written", async () => {
    // release-planner opts out of resuming by itself: its decided run waits for a Resume.
    const started = await run([
      "start",
      "release-planner",
      "--input",
      JSON.stringify({ service: "billing", version: "2.4.0" }),
      "--json",
      "--as",
      "submitter@example.com",
    ]);
    runId = json<{ id: string }>(started).id;
    const [gate] = (await settledRun(runId)).approvals;
    const approved = json<{ resumed: boolean }>(await run(["approve", gate.id, "--json", "--as", "reviewer@example.com"]));
    expect(approved.resumed).toBe(false);
    expect((await run(["show", runId, "--as", "reviewer@example.com"])).out).toMatch(
      /state\s+paused: every call is decided, ready to resume/,
    );
    expect((await run(["runs", "--as", "operator@example.com"])).out).toMatch(
      new RegExp(`${runId}\\s+release-planner\\s+paused, ready to resume\\s`),
    );

    // Another instance reserved and claimed the run (a worker executing it now), with a live lease.
    expect(await reserveRun(t.db, runId, "paused", 60_000, false)).toBe(true);
    const epoch = await claimReserved(t.db, runId, "other-host:4242:abcdef", 60_000);
    expect(epoch).not.toBeNull();
    const before = {
      row: await t.db.run.findUniqueOrThrow({ where: { id: runId } }),
      audit: await t.db.auditEvent.count(),
      entries: await t.db.stateEntry.count(),
    };
    const r = await run(["resume", runId, "--as", "reviewer@example.com"]);
    expect(r.code).toBe(1);
    expect(r.out).toBe("");
    expect(r.err).toBe("afk: Run is running, not paused (409)\n");
    const asJson = await run(["resume", runId, "--json", "--as", "reviewer@example.com"]);
    expect(asJson.code).toBe(1);
    expect(JSON.parse(asJson.err)).toEqual({ error: "Run is running, not paused", status: 409 });
    const after = {
      row: await t.db.run.findUniqueOrThrow({ where: { id: runId } }),
      audit: await t.db.auditEvent.count(),
      entries: await t.db.stateEntry.count(),
    };
    expect(after).toEqual(before);
    expect(after.row).toMatchObject({ state: "running", leaseOwner: "other-host:4242:abcdef", leaseEpoch: epoch });

    // The worker gives the run back as it found it (paused); now a resume reserves it and it goes on, the
    // subagent once, to its next gate (the second model call).
    await t.db.run.update({ where: { id: runId }, data: { state: "paused", leaseOwner: null, leaseUntilMs: null } });
    const resumed = await run(["resume", runId, "--wait", "--json", "--as", "reviewer@example.com"]);
    const view = json<RunView>(resumed);
    expect(view.run.state).toBe("paused");
    expect(view.approvals.map((a) => [a.kind, a.status])).toEqual([
      ["subagent", "approved"],
      ["llm", "pending"],
    ]);
    const audit = await t.db.auditEvent.findMany({ where: { targetId: runId, action: "run.resume" } });
    expect(audit.map((a) => a.actorEmail)).toEqual(["reviewer@example.com"]);
  });

  it("says no in one line with a non-zero exit", async () => {
    const cases: [string[], number, RegExp][] = [
      [["inbox", "--as", "nobody@example.com"], 1, /^afk: No user nobody@example.com \(401\)$/],
      [["inbox", "--as", "gone@example.com"], 1, /^afk: User gone@example.com is disabled \(401\)$/],
      [["inbox"], 2, /^afk: say who acts: --as <email> or AFK_ACTOR/],
      [["show", "no-such-run", "--as", "operator@example.com"], 1, /^afk: No such run \(404\)$/],
      [["start", "refund-desk", "--input", "{", "--as", "submitter@example.com"], 2, /^afk: --input is not valid JSON$/],
      [["start", "refund-desk", "--input", "{}", "--as", "submitter@example.com"], 1, /^afk: input\.order_id: .* \(400\)$/],
      [["cancel", runId, "--as", "reviewer@example.com"], 1, /^afk: Your role may not do this \(403\)$/],
      [["frobnicate"], 2, /^afk: unknown command frobnicate/],
      [["runs", "--colour", "red", "--as", "operator@example.com"], 2, /^afk: runs takes no --colour$/],
    ];
    // Three at a time: each is a whole process (on PostgreSQL with its queue client).
    const results: Out[] = [];
    for (let i = 0; i < cases.length; i += 3) results.push(...(await Promise.all(cases.slice(i, i + 3).map(([args]) => run(args)))));
    for (const [i, [args, code, line]] of cases.entries()) {
      const r = results[i];
      expect({ args, code: r.code, out: r.out }).toEqual({ args, code, out: "" });
      expect(r.err.endsWith("\n") && !r.err.slice(0, -1).includes("\n"), r.err).toBe(true);
      expect(r.err.trim()).toMatch(line);
    }
    // The env alone names the user, as --as does.
    const viaEnv = await run(["runs", "--json"], { AFK_ACTOR: "operator@example.com" });
    expect(json<{ runs: unknown[] }>(viaEnv).runs.length).toBeGreaterThan(0);
  });
});
