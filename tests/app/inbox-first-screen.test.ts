// The inbox page's first screen (app/approvals/first-screen.ts): the page carries the first rows in the
// order the list shows them (what this reviewer may decide first), the whole count and the filter's tools
// of the whole list; an inbox no longer than a screen is carried whole (nothing to load after hydration).
// Each row as the list needs it: without the policy's reason and the record's version (the API has them).
import { describe, expect, it } from "vitest";
import { FIRST_ROWS, firstScreen, routed, toolsOf } from "@/app/approvals/first-screen";
import type { InboxDto, InboxItemDto, InboxRowDto } from "@/lib/dto";

const item = (i: number, canDecide: boolean, tool = `tool_${i % 3}`): InboxItemDto => ({
  id: `run-${i}:1:call_${i}`,
  runId: `run-${i}`,
  subRunId: null,
  agent: "deploy-bot",
  rootAgent: "deploy-bot",
  tool,
  kind: "tool",
  summary: `service: s${i}`,
  reason: "",
  requestedBy: "sub@example.com",
  requestedAtMs: 1_000 + i,
  deadlineMs: null,
  quorum: 1,
  groups: canDecide ? [] : ["finance"],
  canDecide,
  approvals: 0,
  decidedByMe: false,
  argsHash: `h${i}`,
  version: 1,
});

const row = ({ reason: _r, version: _v, ...rest }: InboxItemDto): InboxRowDto => rest;

const inbox = (approvals: InboxItemDto[]): InboxDto => ({ approvals, corrupt: [], nextCursor: "c1", asOfMs: 5_000 });

describe("the inbox page's first screen", () => {
  it("carries the first rows as the list orders them, the whole count, and the same answer otherwise", () => {
    // Read-only rows first in the stored order: routing moves the decidable ones ahead of them.
    const all = [...Array.from({ length: 10 }, (_, i) => item(i, false)), ...Array.from({ length: 190 }, (_, i) => item(10 + i, true))];
    const whole = inbox(all);
    const first = firstScreen(whole);
    expect(first.firstScreenOf).toBe(200);
    expect(first.approvals).toHaveLength(FIRST_ROWS);
    expect(first.approvals).toEqual(routed(all).slice(0, FIRST_ROWS).map(row));
    expect(first.approvals.some((a) => "reason" in a || "version" in a)).toBe(false);
    expect(first.approvals.every((a) => a.canDecide)).toBe(true);
    expect({ ...first, approvals: [], firstScreenOf: undefined }).toEqual({ ...whole, approvals: [], firstScreenOf: undefined });
    // The list's own order of that first screen is the one it had in the whole list.
    expect(routed(first.approvals)).toEqual(first.approvals);
  });

  it("is the whole inbox when it fits a screen", () => {
    const small = inbox([item(1, false), item(2, true)]);
    expect(firstScreen(small)).toEqual({ ...small, approvals: small.approvals.map(row) });
    expect(firstScreen(inbox(Array.from({ length: FIRST_ROWS }, (_, i) => item(i, true)))).firstScreenOf).toBeUndefined();
  });

  it("offers the tools of the whole list, not only of its first screen", () => {
    const all = [...Array.from({ length: 199 }, (_, i) => item(i, true, "send_reply")), item(199, true, "issue_refund")];
    expect(firstScreen(inbox(all)).approvals.some((a) => a.tool === "issue_refund")).toBe(false);
    expect(toolsOf(inbox(all))).toEqual(["issue_refund", "send_reply"]);
  });
});
