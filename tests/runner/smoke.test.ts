import { describe, expect, it } from "vitest";
import { approvalIdOf, decideApproval, listCheckpoints } from "@/lib/runner";
import { makeWorld } from "./fixtures";

describe("runner smoke", () => {
  it("pauses for approval, resumes after a decision and completes", async () => {
    const w = makeWorld();
    const r1 = await w.runner.run(w.agent, { userMessage: "buy", runId: "run1" });
    expect(r1.state).toBe("paused");
    expect(r1.pendingApprovals).toEqual(["run1:2:c2"]);
    expect(w.effects.map((e) => e.toolCallId)).toEqual(["c1", "c3"]);
    await decideApproval(w.store, "run1", await approvalIdOf(w.store, "run1", "run1", "c2"), w.agent.tools[1], {
      by: "rev",
      decision: "approve",
    });
    const r2 = await w.runner.resume(w.agent, { runId: "run1", threadId: "run1" });
    expect(r2.state).toBe("completed");
    expect(r2.finalText).toContain("7000");
    expect(w.effects.map((e) => e.toolCallId)).toEqual(["c1", "c3", "c2"]);
    expect(r2.stateSnapshot.replayedEffectCount).toBe(1);
    const cps = await listCheckpoints(w.store, "run1", "run1");
    console.log(cps.map((c) => `${c.step}:${c.phase}`).join(" "));
  });
});
