// Words the console shows for counts, phases and states (lib/format.ts): plurals right, phases and states
// as a reader says them, never a raw identifier where a sentence belongs.
import { describe, expect, it } from "vitest";
import { PHASES } from "@/lib/runner/checkpoint";
import { RUN_STATES } from "@/lib/runner/state";
import { approvalStatusWords, phaseWords, plural, runStateWords } from "@/lib/format";

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
});
