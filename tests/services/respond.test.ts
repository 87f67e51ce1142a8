// Respond: a reviewer answers in the tool's place. The tool does not run (its rows count executions), the
// model gets the answer as the call's result, the decision is audited, and a respond without an answer
// is a 400 naming the field.
import { describe, expect, it } from "vitest";
import type { Actor } from "@/lib/auth/actor";
import { HttpError } from "@/lib/auth/errors";
import { decide } from "@/lib/services/decide";
import { getRunView } from "@/lib/services/run-view";
import { startRun } from "@/lib/services/start";
import { databaseWithContext, providers } from "../helpers/databases";

const sub: Actor = { id: "u-sub", email: "submitter@example.com", name: "S", role: "submitter" };
const rev: Actor = { id: "u-rev", email: "reviewer@example.com", name: "R", role: "reviewer" };

describe.each(providers)("respond on %s", (provider) => {
  const h = databaseWithContext(provider);

  it("the tool does not run; the model answers with the reviewer's text; the run resumes by itself", async () => {
    const { id } = await startRun(h.ctx, sub, {
      body: {
        agent: "support-writer",
        input: { customer: "Ana", question: "Where is my parcel?" },
      },
    });
    await h.ctx.worker.idle();
    const paused = await getRunView(h.ctx, rev, { runId: id });
    const approval = paused.approvals[0];
    expect(approval.status).toBe("pending");
    const bad = await decide(h.ctx, rev, { approvalId: approval.id, body: { decision: "respond", reason: "  " } }).catch((e) => e);
    expect(bad).toBeInstanceOf(HttpError);
    expect([bad.status, bad.field]).toEqual([400, "reason"]);
    const r = await decide(h.ctx, rev, {
      approvalId: approval.id,
      body: {
        decision: "respond",
        reason: "We phone Ana today; do not email.",
        argsHash: approval.argsHash,
      },
    });
    expect(r.approval.status).toBe("responded");
    expect(r.resumed).toBe(true);
    await h.ctx.worker.idle();
    const done = await getRunView(h.ctx, rev, { runId: id });
    expect(done.run.state).toBe("completed");
    expect(await h.t.db.outboxMessage.count({ where: { runId: id } })).toBe(0);
    const tool = done.conversation!.messages.find((m) => m.role === "tool");
    expect(tool?.content).toBe("A reviewer answered instead of running send_reply: We phone Ana today; do not email.");
    expect(done.conversation!.messages.at(-1)?.content).toBe(
      "No reply sent; the reviewer answered instead: We phone Ana today; do not email.",
    );
    expect(done.conversation!.toolExecutions.at(-1)).toMatchObject({
      success: true,
      output: { reviewer_response: "We phone Ana today; do not email." },
    });
    const audit = await h.t.db.auditEvent.findMany({ where: { targetId: id, action: "approval.respond" } });
    expect(audit).toHaveLength(1);
    // Decided once: a second answer is a conflict.
    const again = await decide(h.ctx, rev, { approvalId: approval.id, body: { decision: "respond", reason: "again" } }).catch((e) => e);
    expect(again.status).toBe(409);
  });
});
