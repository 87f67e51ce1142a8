// A request past its deadline is decided by the deadlines service (lib/services/deadlines.ts) and followed
// by the steps every decision has (requestDecided in lib/services/decide.ts): its audit entry, the closed
// request counted once, every reviewer's inbox and every tab on the run told, and the run resumed as after
// a person's decision. A second sweep finds nothing left to do.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { LiveMessage } from "@/lib/live/bus";
import { metrics } from "@/lib/metrics";
import { type Agent, defineTool } from "@/lib/runner";
import { sweep } from "@/lib/services/deadlines";
import { startRun } from "@/lib/services/start";
import { sub } from "../helpers/actors";
import { databaseWithContext, providers } from "../helpers/databases";
import { scriptedModel } from "../helpers/scripted-model";

const act = defineTool({ name: "act", description: "act", schema: z.object({}), execute: async () => ({ done: true }) });
const timed: Agent = {
  name: "deadline-desk",
  model: "script:deadline",
  instructions: "",
  tools: [act],
  inputSchema: z.object({}),
  toUserMessage: () => "go",
  policy: [{ id: "act", tool: "act", action: "require_approval", reason: "reviewed" }],
  approvalTimeoutS: 1,
};
const model = scriptedModel("script", (turn) =>
  turn === 1 ? { text: "acting", calls: [{ id: "c1", name: "act", args: {} }] } : { text: "done" },
);

const decidedHere = async () =>
  (await metrics().approvalsDecided.get()).values.filter((v) => v.labels.agent === "deadline-desk").reduce((n, v) => n + v.value, 0);

describe.each(providers)("deadlines on %s", (provider) => {
  const h = databaseWithContext(provider, { agents: { "deadline-desk": timed }, models: { script: model } });

  it("an expired request is audited, counted once, announced, and its run resumes", async () => {
    const { id } = await startRun(h.ctx, sub, { body: { agent: "deadline-desk", input: {} } });
    await h.ctx.worker.idle();
    expect((await h.t.db.run.findUniqueOrThrow({ where: { id } })).state).toBe("paused");
    const before = await decidedHere();
    const heard: LiveMessage[] = [];
    const stop = h.ctx.live.subscribe((m) => heard.push(m));
    try {
      expect((await sweep(h.ctx, Date.now() + 5_000)).expired).toBe(1);
      expect(heard.some((m) => m.topic === "inbox")).toBe(true);
      expect(heard.some((m) => m.topic === "run" && m.runId === id)).toBe(true);
    } finally {
      stop();
    }
    const audit = await h.t.db.auditEvent.findMany({ where: { targetId: id, action: { startsWith: "approval.deadline_" } } });
    expect(audit.map((a) => a.action)).toEqual(["approval.deadline_deny"]);
    expect(await decidedHere()).toBe(before + 1);
    await h.ctx.worker.idle();
    expect((await h.t.db.run.findUniqueOrThrow({ where: { id } })).state).toBe("completed");
    // Nothing is left to expire: no second entry, no second count.
    expect((await sweep(h.ctx, Date.now() + 10_000)).expired).toBe(0);
    expect(await h.t.db.auditEvent.count({ where: { targetId: id, action: { startsWith: "approval.deadline_" } } })).toBe(1);
    expect(await decidedHere()).toBe(before + 1);
  });
});
