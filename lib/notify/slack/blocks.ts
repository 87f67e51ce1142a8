// What the Slack app shows: Block Kit messages for a request (with Approve and Reject), a reminder, an
// escalation and a digest, the reject modal, and the same message once decided ("Approved by Ana in the
// console", a quorum's count). Rendering only: ./channel.ts sends, ./interactions.ts acts.
import type { ActionsBlock, Button, KnownBlock, ModalView } from "@slack/web-api";
import { z } from "zod";
import type { ApprovalRecord } from "../../runner/index.ts";
import type { Delivery, Notice, Outcome } from "../channel.ts";

export const ACTION = { approve: "afk_approve", reject: "afk_reject", open: "afk_open" } as const;
export const ACTIONS_BLOCK = "afk_decide";
export const REJECT_VIEW = "afk_reject";
export const REASON_BLOCK = "afk_reason";
export const REASON_INPUT = "reason";

// Slack's limits (Block Kit reference): a header's text, a section's text and field, a message's blocks.
const HEADER_MAX = 150;
const TEXT_MAX = 3000;
const FIELD_MAX = 2000;
const FIELDS_MAX = 10;
export const DIGEST_ITEMS = 20;
const METADATA_MAX = 3000;

/** What a button carries back: the request and the hash of the arguments the message showed. */
export const buttonValueSchema = z.object({ a: z.string().min(1).max(300), h: z.string().regex(/^[0-9a-f]{64}$/) });
export type ButtonValue = z.infer<typeof buttonValueSchema>;

/** The reject modal's private metadata: the button's value, the message to update and its title. */
export const modalMetaSchema = buttonValueSchema.extend({
  c: z.string().max(40).optional(),
  ts: z.string().max(40).optional(),
  t: z.string().max(150).optional(),
  /** The message's blocks without its buttons, when they fit Slack's 3,000 characters of metadata. */
  b: z.array(z.looseObject({ type: z.string() })).optional(),
});
export type ModalMeta = z.infer<typeof modalMetaSchema>;

/** Slack's mrkdwn takes &, < and > only escaped (they open links and mentions). */
export const mrkdwn = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
const cut = (s: string, max: number) => (s.length > max ? `${s.slice(0, max - 1)}…` : s);
const when = (iso: string) => {
  const t = Date.parse(iso);
  return Number.isNaN(t) ? mrkdwn(iso) : `<!date^${Math.floor(t / 1000)}^{date_short_pretty} {time}|${mrkdwn(iso)}>`;
};

/** Only tool calls, gates and external interrupts are approved or rejected; a question is answered on its card. */
export const decidable = (n: Notice) => n.kind !== "question" && !!n.argsHash;

function decideButtons(n: Notice): ActionsBlock {
  const open: Button = { type: "button", action_id: ACTION.open, text: { type: "plain_text", text: "Open in the console" }, url: n.url };
  if (!decidable(n)) return { type: "actions", block_id: ACTIONS_BLOCK, elements: [open] };
  return { type: "actions", block_id: ACTIONS_BLOCK, elements: [...approveReject(n), open] };
}

function approveReject(n: Notice): Button[] {
  const value = JSON.stringify({ a: n.approvalId, h: n.argsHash ?? "" } satisfies ButtonValue);
  return [
    { type: "button", action_id: ACTION.approve, style: "primary", text: { type: "plain_text", text: "Approve" }, value },
    { type: "button", action_id: ACTION.reject, style: "danger", text: { type: "plain_text", text: "Reject" }, value },
  ];
}

// A digest's items each have their own buttons (a block id is unique within a message): "afk_decide.3".
const itemBlock = (prefix: string, i: number) => `${prefix}.${i}`;
const ITEM_ACTIONS = /^afk_decide\.(\d+)$/;

/** The index of the digest item whose buttons decide this request, if the message is a digest that has them. */
function digestItemOf(blocks: KnownBlock[], approvalId: string): number | null {
  for (const b of blocks) {
    const m = b.type === "actions" ? ITEM_ACTIONS.exec(b.block_id ?? "") : null;
    if (!m) continue;
    const value = (b as ActionsBlock).elements.map((e) => ("value" in e ? e.value : undefined)).find(Boolean);
    try {
      if (value && JSON.parse(value).a === approvalId) return Number(m[1]);
    } catch {}
  }
  return null;
}

function about(n: Notice): string {
  const parts = [`*${mrkdwn(n.agent)}*`];
  if (n.requestedBy) parts.push(`for ${mrkdwn(n.requestedBy)}`);
  if (n.routingGroups.length) parts.push(`routed to ${mrkdwn(n.routingGroups.join(", "))}`);
  if (n.deadline) parts.push(`decide by ${when(n.deadline)}`);
  return parts.join(" · ");
}

/** The request as a message: its title, its fields as on the card, who asked, the deadline, the buttons. */
export function requestBlocks(n: Notice, lead?: string): KnownBlock[] {
  const blocks: KnownBlock[] = [];
  if (lead) blocks.push({ type: "context", elements: [{ type: "mrkdwn", text: cut(lead, TEXT_MAX) }] });
  blocks.push({ type: "header", text: { type: "plain_text", text: cut(n.title, HEADER_MAX) } });
  const fields = n.fields
    .slice(0, FIELDS_MAX)
    .map((f) => ({ type: "mrkdwn" as const, text: cut(`*${mrkdwn(f.label)}*\n${mrkdwn(f.value)}`, FIELD_MAX) }));
  if (fields.length) blocks.push({ type: "section", fields });
  if (n.fields.length > FIELDS_MAX)
    blocks.push({ type: "context", elements: [{ type: "mrkdwn", text: `${n.fields.length - FIELDS_MAX} more on the card` }] });
  blocks.push({ type: "context", elements: [{ type: "mrkdwn", text: cut(about(n), TEXT_MAX) }] });
  blocks.push(decideButtons(n));
  return blocks;
}

function digestBlocks(notices: Notice[]): KnownBlock[] {
  const blocks: KnownBlock[] = [
    { type: "header", text: { type: "plain_text", text: `${notices.length} request${notices.length === 1 ? "" : "s"} wait for you` } },
  ];
  for (const [i, n] of notices.slice(0, DIGEST_ITEMS).entries()) {
    const summary = n.fields
      .slice(0, 3)
      .map((f) => `${mrkdwn(f.label)}: ${mrkdwn(f.value)}`)
      .join(" · ");
    blocks.push({
      type: "section",
      block_id: itemBlock("afk_item", i),
      text: { type: "mrkdwn", text: cut(`*<${n.url}|${mrkdwn(n.title)}>*\n${summary}\n${about(n)}`, TEXT_MAX) },
    });
    // Within Slack's 50 blocks: a header, 20 items of two blocks, the "more" line.
    if (decidable(n)) blocks.push({ type: "actions", block_id: itemBlock(ACTIONS_BLOCK, i), elements: approveReject(n) });
  }
  if (notices.length > DIGEST_ITEMS)
    blocks.push({ type: "context", elements: [{ type: "mrkdwn", text: `${notices.length - DIGEST_ITEMS} more in the console's inbox` }] });
  return blocks;
}

/** A delivery as Slack's `text` (notifications and screen readers) and `blocks`. */
export function deliveryMessage(d: Delivery): { text: string; blocks: KnownBlock[] } {
  switch (d.type) {
    case "request":
      return { text: cut(d.notice.title, TEXT_MAX), blocks: requestBlocks(d.notice) };
    case "reminder":
      return {
        text: cut(`Reminder: ${d.notice.title}`, TEXT_MAX),
        blocks: requestBlocks(d.notice, `:alarm_clock: Reminder ${d.count}: this request still waits for a decision`),
      };
    case "escalation":
      return {
        text: cut(`Escalated: ${d.notice.title}`, TEXT_MAX),
        blocks: requestBlocks(d.notice, `:rotating_light: Escalated from ${mrkdwn(d.from)}: nobody has decided it yet`),
      };
    case "reassigned":
      return {
        text: cut(`Reassigned: ${d.notice.title}`, TEXT_MAX),
        blocks: requestBlocks(
          d.notice,
          `:arrow_right: ${mrkdwn(d.by)} reassigned this request to ${d.to.includes("@") ? "you" : mrkdwn(d.to)}${d.reason ? `: ${mrkdwn(d.reason)}` : ""}`,
        ),
      };
    case "comment":
      return {
        text: cut(`Comment from ${d.by}: ${d.notice.title}`, TEXT_MAX),
        blocks: requestBlocks(d.notice, `:speech_balloon: ${mrkdwn(d.by)} commented: ${mrkdwn(d.text)}`),
      };
    case "digest":
      return { text: `${d.notices.length} requests wait for you`, blocks: digestBlocks(d.notices) };
  }
}

const VIA: Record<string, string> = {
  console: "in the console",
  slack: "in Slack",
  api: "through the API",
  cli: "from the CLI",
  email: "from email",
};
const STATUS: Record<string, string> = {
  approved: ":white_check_mark: Approved",
  rejected: ":x: Rejected",
  responded: ":speech_balloon: Answered",
  expired: ":hourglass: Expired",
};

/** What became of a request after a decision, for Slack's message (the dispatcher may build its Outcome with it too). */
export function approvalOutcome(rec: ApprovalRecord, by: string | null, via: string): Outcome {
  const have = rec.decisions.filter((d) => d.decision === "approve").length;
  return { approvalId: rec.id, status: rec.status, by, via, ...(rec.quorum > 1 ? { votes: { have, need: rec.quorum } } : {}) };
}

/** One line saying what became of the request: "Approved by Ana in the console", "1 of 2 approvals". */
export function outcomeText(o: Outcome): string {
  const by = o.by ? ` by ${mrkdwn(o.by)}` : "";
  const via = o.via ? (VIA[o.via.toLowerCase()] ?? `via ${mrkdwn(o.via)}`) : "";
  if (o.status === "pending")
    return o.votes
      ? `:ballot_box_with_ballot: ${o.votes.have} of ${o.votes.need} approvals${o.by ? ` (latest${by} ${via})` : ""}; it still waits for ${o.votes.need - o.votes.have} more`
      : ":hourglass_flowing_sand: Still waiting";
  return `${STATUS[o.status] ?? mrkdwn(o.status)}${by}${via ? ` ${via}` : ""}`;
}

/**
 * The message updated with its outcome. `shown` is the message as it is (an interaction carries it): its
 * blocks stay, with the buttons only while the request still waits. Without it (an update from the
 * dispatcher), the request's title and its link are what remains.
 */
export function outcomeMessage(
  o: Outcome,
  shown: { blocks?: unknown[]; title: string; url?: string },
): { text: string; blocks: KnownBlock[] } {
  const line: KnownBlock = { type: "section", block_id: "afk_outcome", text: { type: "mrkdwn", text: cut(outcomeText(o), TEXT_MAX) } };
  const text = cut(`${shown.title}: ${outcomeText(o)}`, TEXT_MAX);
  if (shown.blocks?.length) {
    // A digest: the decided item's buttons give way to its outcome; the other items keep theirs.
    const item = digestItemOf(shown.blocks as KnownBlock[], o.approvalId);
    if (item !== null) {
      const lineId = itemBlock("afk_outcome", item);
      const kept = (shown.blocks as KnownBlock[]).filter(
        (b) => b.block_id !== lineId && (o.status === "pending" || b.block_id !== itemBlock(ACTIONS_BLOCK, item)),
      );
      const at = kept.findIndex((b) => b.block_id === itemBlock(ACTIONS_BLOCK, item));
      const itemLine: KnownBlock = { ...line, block_id: lineId };
      if (at >= 0) kept.splice(at, 0, itemLine);
      else kept.splice(kept.findIndex((b) => b.block_id === itemBlock("afk_item", item)) + 1, 0, itemLine);
      return { text, blocks: kept };
    }
    // A digest without buttons for this request (decided already, or beyond the 20 shown) stays as it is.
    if ((shown.blocks as KnownBlock[]).some((b) => b.block_id?.startsWith("afk_item.")))
      return { text, blocks: shown.blocks as KnownBlock[] };
    const kept = (shown.blocks as KnownBlock[]).filter(
      (b) => b.block_id !== "afk_outcome" && (o.status === "pending" || b.block_id !== ACTIONS_BLOCK),
    );
    const at = kept.findIndex((b) => b.block_id === ACTIONS_BLOCK);
    if (at >= 0) kept.splice(at, 0, line);
    else kept.push(line);
    return { text, blocks: kept };
  }
  const blocks: KnownBlock[] = [{ type: "header", text: { type: "plain_text", text: cut(shown.title, HEADER_MAX) } }, line];
  if (shown.url) blocks.push({ type: "context", elements: [{ type: "mrkdwn", text: `<${shown.url}|Open in the console>` }] });
  return { text, blocks };
}

/** The modal Reject opens: the reason, required, as the console asks for it. */
export function rejectModal(meta: Omit<ModalMeta, "b">, title: string, shown?: unknown[]): ModalView {
  const kept = (shown as KnownBlock[] | undefined)?.filter((b) => b.block_id !== ACTIONS_BLOCK && b.block_id !== "afk_outcome");
  const withBlocks = JSON.stringify({ ...meta, b: kept });
  return {
    type: "modal",
    callback_id: REJECT_VIEW,
    private_metadata: kept?.length && withBlocks.length <= METADATA_MAX ? withBlocks : JSON.stringify(meta),
    title: { type: "plain_text", text: "Reject" },
    submit: { type: "plain_text", text: "Reject" },
    close: { type: "plain_text", text: "Cancel" },
    blocks: [
      { type: "section", text: { type: "mrkdwn", text: cut(`*${mrkdwn(title)}*`, TEXT_MAX) } },
      {
        type: "input",
        block_id: REASON_BLOCK,
        label: { type: "plain_text", text: "Reason" },
        hint: { type: "plain_text", text: "The agent and the audit log get it." },
        element: { type: "plain_text_input", action_id: REASON_INPUT, multiline: true, min_length: 1, max_length: 2000 },
      },
    ],
  };
}
