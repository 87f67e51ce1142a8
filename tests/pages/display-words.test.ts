// Words the console shows for counts, phases and states (lib/format.ts): plurals right, phases and states
// as a reader says them, never a raw identifier where a sentence belongs.
import { describe, expect, it } from "vitest";
import { PHASES } from "@/lib/runner/checkpoint";
import { RUN_STATES } from "@/lib/runner/run-states";
import {
  AUDIT_ACTIONS,
  approvalStatusWords,
  auditActionWords,
  fmtAgo,
  fmtLocal,
  phaseWords,
  plural,
  runStateWords,
  titleWithCount,
} from "@/lib/format";

describe("display words", () => {
  it("plurals", () => {
    expect(plural(1, "minute")).toBe("1 minute");
    expect(plural(15, "minute")).toBe("15 minutes");
    expect(plural(0, "call")).toBe("0 calls");
    expect(plural(2, "reply", "replies")).toBe("2 replies");
  });

  it("every phase and run state has words of its own", () => {
    for (const p of PHASES) expect(phaseWords(p), p).not.toMatch(/_/);
    expect(phaseWords("run_terminal")).toBe("Run ended");
    expect(phaseWords("paused")).toBe("Waiting for a person");
    expect(phaseWords(null)).toBe("—");
    for (const s of RUN_STATES) expect(runStateWords(s), s).toMatch(/^[A-Z][a-z ,]+$/);
  });

  it("a paused run says what it waits for", () => {
    expect(runStateWords("paused", [{ kind: "tool" }, { kind: "tool" }])).toBe("Waiting for approval");
    expect(runStateWords("paused", [{ kind: "question" }])).toBe("Waiting for an answer");
    expect(runStateWords("paused", [{ kind: "tool" }, { kind: "question" }])).toBe("Waiting for approval and answers");
    expect(runStateWords("completed")).toBe("Completed");
  });

  it("an approval's status, for calls and for questions", () => {
    expect(approvalStatusWords("approved", "tool")).toBe("Approved");
    expect(approvalStatusWords("rejected", "tool")).toBe("Rejected");
    expect(approvalStatusWords("rejected", "question")).toBe("Declined");
    expect(approvalStatusWords("responded", "question")).toBe("Answered");
    expect(approvalStatusWords("responded", "tool")).toBe("Answered in the tool's place");
    expect(approvalStatusWords("expired", "tool")).toBe("Expired");
    expect(approvalStatusWords("pending", "tool")).toBe("Waiting for a decision");
  });

  it("the audit log's actions in words, as a sentence's verb; an unknown one as it is", () => {
    for (const a of AUDIT_ACTIONS) expect(auditActionWords(a), a).toMatch(/^[a-z][A-Za-z ,()'-]+$/);
    expect(auditActionWords("approval.approve")).toBe("approved");
    expect(auditActionWords("approval.edit_approve")).toBe("approved with edited arguments");
    expect(auditActionWords("run.auto_resume")).toBe("resumed by itself");
    expect(auditActionWords("run.cancel")).toBe("cancelled the run");
    expect(auditActionWords("something.new")).toBe("something.new");
    // Every action the console writes has its words (the ones the decision service composes included).
    for (const a of ["approval.respond", "approval.deadline_allow", "approval.deadline_deny", "run.auto_retry", "runtime.claim"])
      expect(AUDIT_ACTIONS).toContain(a);
  });

  it("a tab's title leads with the pending count, once", () => {
    expect(titleWithCount("Approvals · AFK Console", 3)).toBe("(3) Approvals · AFK Console");
    expect(titleWithCount("(3) Approvals · AFK Console", 4)).toBe("(4) Approvals · AFK Console");
    expect(titleWithCount("(3) Runs · AFK Console", 0)).toBe("Runs · AFK Console");
    expect(titleWithCount("AFK Console", 0)).toBe("AFK Console");
  });

  it("times: local to the minute, and how long ago or how soon in one unit", () => {
    const now = Date.UTC(2026, 11, 7, 12, 0, 0);
    expect(fmtAgo(now - 10_000, now)).toBe("just now");
    expect(fmtAgo(now - 12 * 60_000, now)).toBe("12 min ago");
    expect(fmtAgo(now - 3 * 3_600_000, now)).toBe("3 h ago");
    expect(fmtAgo(now - 5 * 86_400_000, now)).toBe("5 d ago");
    expect(fmtAgo(now + 30 * 60_000, now)).toBe("in 30 min");
    expect(fmtAgo(new Date(now - 90_000).toISOString(), now)).toBe("2 min ago");
    // Local: the reader's zone (Node applies a TZ set at run time), to the minute.
    const was = process.env.TZ;
    try {
      process.env.TZ = "Asia/Kolkata";
      expect(fmtLocal(now)).toBe("2026-12-07 17:30");
      process.env.TZ = "America/New_York";
      expect(fmtLocal(now)).toBe("2026-12-07 07:00");
    } finally {
      if (was === undefined) delete process.env.TZ;
      else process.env.TZ = was;
    }
  });
});
