// The email channel: one message per delivery over SMTP (nodemailer), HTML and plain text. The link opens
// the card after sign-in; nothing in a message decides anything. The SMTP URL (with its password) comes
// from the environment and is never logged: errors are reported by their code and message only.
import nodemailer from "nodemailer";
import type { Channel, Delivery, Notice, Recipient, SentRef } from "./channel.ts";

export type EmailConfig = { url: string; from: string };

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

const when = (iso: string) =>
  `${new Intl.DateTimeFormat("en-GB", { dateStyle: "medium", timeStyle: "short", timeZone: "UTC" }).format(new Date(iso))} UTC`;

function subjectOf(d: Delivery): string {
  switch (d.type) {
    case "request":
      return `Decision needed: ${d.notice.title} (${d.notice.agent})`;
    case "digest":
      return `${d.notices.length} requests wait for your decision`;
    case "reminder":
      return `Reminder ${d.count}: ${d.notice.title} (${d.notice.agent})`;
    case "escalation":
      return `Escalated to you: ${d.notice.title} (${d.notice.agent})`;
    case "reassigned":
      return `Reassigned to ${d.to.includes("@") ? "you" : d.to}: ${d.notice.title} (${d.notice.agent})`;
    case "comment":
      return `Comment from ${d.by}: ${d.notice.title} (${d.notice.agent})`;
  }
}

function noticeText(n: Notice): string {
  const lines = [n.title, `Agent: ${n.agent}`];
  for (const f of n.fields) lines.push(`${f.label}: ${f.value}`);
  lines.push(`Asked by: ${n.requestedBy ?? "—"}`);
  if (n.deadline) lines.push(`Decide by: ${when(n.deadline)}`);
  if (n.routingGroups.length) lines.push(`Routed to: ${n.routingGroups.join(", ")}`);
  lines.push(`Open the request: ${n.url}`);
  return lines.join("\n");
}

function noticeHtml(n: Notice): string {
  const rows = [
    ["Agent", n.agent],
    ...n.fields.map((f) => [f.label, f.value]),
    ["Asked by", n.requestedBy ?? "—"],
    ...(n.deadline ? [["Decide by", when(n.deadline)]] : []),
    ...(n.routingGroups.length ? [["Routed to", n.routingGroups.join(", ")]] : []),
  ];
  return `<h2 style="font:600 16px sans-serif">${esc(n.title)}</h2>
<table style="font:14px sans-serif;border-collapse:collapse">${rows
    .map(
      ([k, v]) =>
        `<tr><th style="text-align:left;padding:2px 12px 2px 0;color:#555">${esc(k)}</th><td style="white-space:pre-wrap">${esc(v)}</td></tr>`,
    )
    .join("")}</table>
<p><a href="${esc(n.url)}">Open the request in AFK Console</a></p>`;
}

function bodyOf(d: Delivery): { text: string; html: string } {
  const intro =
    d.type === "digest"
      ? `${d.notices.length} requests wait for your decision.`
      : d.type === "reminder"
        ? `This request still waits for a decision (reminder ${d.count}).`
        : d.type === "escalation"
          ? `This request has waited too long and is escalated to you (it was with ${d.from}).`
          : d.type === "reassigned"
            ? `${d.by} reassigned this request to ${d.to.includes("@") ? "you" : d.to}${d.reason ? `: ${d.reason}` : "."}`
            : d.type === "comment"
              ? `${d.by} commented on this request:\n${d.text}`
              : "A run waits for your decision.";
  const notices = d.type === "digest" ? d.notices : [d.notice];
  const footer = "You receive this because you may decide these requests. Decisions are taken in the console, after sign-in.";
  return {
    text: [intro, ...notices.map(noticeText), footer].join("\n\n"),
    html: `<p style="font:14px sans-serif">${esc(intro)}</p>${notices.map(noticeHtml).join("<hr>")}<p style="font:12px sans-serif;color:#777">${esc(footer)}</p>`,
  };
}

export class EmailChannel implements Channel {
  readonly name = "email";
  private readonly transport: nodemailer.Transporter;
  constructor(private readonly cfg: EmailConfig) {
    // A pool keeps connections open between messages (a request's first message should not wait for a handshake).
    this.transport = nodemailer.createTransport(`${cfg.url}${cfg.url.includes("?") ? "&" : "?"}pool=true`, { from: cfg.from });
  }

  async send(to: Recipient, delivery: Delivery, key: string): Promise<SentRef> {
    const { text, html } = bodyOf(delivery);
    const domain = this.cfg.from.match(/@([^>\s]+)/)?.[1] ?? "afk.local";
    const messageId = `<${key}@${domain}>`;
    try {
      await this.transport.sendMail({
        from: this.cfg.from,
        to: to.name ? { name: to.name, address: to.email } : to.email,
        subject: subjectOf(delivery),
        text,
        html,
        messageId,
        headers: { "X-AFK-Delivery": key, "Auto-Submitted": "auto-generated" },
      });
    } catch (e) {
      // nodemailer's errors name the server, never the URL's password; keep only what is safe to log.
      const err = e as { code?: string; responseCode?: number; message?: string };
      throw new Error(
        `SMTP ${err.code ?? "error"}${err.responseCode ? ` ${err.responseCode}` : ""}: ${String(err.message ?? e).slice(0, 300)}`,
      );
    }
    return { channel: "email", ref: messageId };
  }

  close() {
    this.transport.close();
  }
}
