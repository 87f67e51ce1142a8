// The Slack channel: a delivery as a Block Kit message, to a routing group's channel or as a direct message
// to a reviewer (found by their email), and the message edited in place once the request is decided. The
// official Web API client does the HTTP; it retries nothing itself (the dispatcher retries with backoff).
import "server-only";
import { LogLevel, WebClient } from "@slack/web-api";
import { z } from "zod";
import type { Channel, Delivery, Outcome, Recipient, SentRef } from "../channel.ts";
import { DIGEST_ITEMS, deliveryMessage, outcomeMessage, requestBlocks } from "./blocks.ts";
import { type SlackConfig, slackConfig } from "./config.ts";
import { log } from "../../log.ts";

export const SLACK_CHANNEL = "slack";

/** What a SentRef's `ref` holds for a Slack message (opaque to the dispatcher, which stores it). */
const noticeSchema = z.object({
  approvalId: z.string(),
  runId: z.string(),
  agent: z.string(),
  kind: z.string(),
  title: z.string(),
  fields: z.array(z.object({ label: z.string(), value: z.string() })),
  requestedBy: z.string().nullable(),
  deadline: z.string().nullable(),
  url: z.string(),
  routingGroups: z.array(z.string()),
  argsHash: z.string().optional(),
});

const sentSchema = z.object({
  v: z.literal(1),
  /** The conversation (C… for a channel, D… for a direct message) and the message's ts. */
  c: z.string().min(1),
  ts: z.string().min(1),
  title: z.string(),
  url: z.string().optional(),
  /** The request the message showed, so an update re-renders it whole with its outcome. */
  n: noticeSchema.optional(),
  /** A digest's requests (those it shows), so an update re-renders it with each one's buttons. */
  ns: z.array(noticeSchema).optional(),
});
type Sent = z.infer<typeof sentSchema>;

export const sentRef = (s: Omit<Sent, "v">): SentRef => ({ channel: SLACK_CHANNEL, ref: JSON.stringify({ v: 1, ...s }) });

export function readSentRef(ref: SentRef): Sent {
  let json: unknown;
  try {
    json = JSON.parse(ref.ref);
  } catch {
    json = null;
  }
  const r = sentSchema.safeParse(json);
  if (ref.channel !== SLACK_CHANNEL || !r.success) throw new Error("Not a Slack message reference");
  return r.data;
}

/** The Web API client for this configuration: no retries of its own, rate limits answered as failures. */
export function slackClient(config: SlackConfig): WebClient {
  return new WebClient(config.token, {
    slackApiUrl: config.apiUrl,
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
    timeout: 10_000,
    logLevel: LogLevel.ERROR,
  });
}

const titleOf = (d: Delivery) => (d.type === "digest" ? `${d.notices.length} requests` : d.notice.title);
const urlOf = (d: Delivery) => (d.type === "digest" ? undefined : d.notice.url);
const noticeOf = (d: Delivery) => (d.type === "digest" ? undefined : d.notice);
const noticesOf = (d: Delivery) => (d.type === "digest" ? d.notices.slice(0, DIGEST_ITEMS) : undefined);

export class SlackChannel implements Channel {
  readonly name = SLACK_CHANNEL;
  private readonly client: WebClient;

  constructor(private readonly config: SlackConfig) {
    this.client = slackClient(config);
  }

  /** The channels of a request's routing groups that have one (AFK_SLACK_CHANNELS), each once. */
  groupChannels(routingGroups: string[]): string[] {
    return [...new Set(routingGroups.map((g) => this.config.channels[g]).filter((c): c is string => !!c))];
  }

  /** A direct message to the reviewer, found in the workspace by their console email. */
  async send(to: Recipient, delivery: Delivery, key: string): Promise<SentRef | null> {
    const found = await this.client.users.lookupByEmail({ email: to.email }).catch((e: unknown) => {
      // Not in the workspace: nothing to retry, the reviewer is simply not reachable here.
      if (slackErrorCode(e) === "users_not_found") return null;
      throw e;
    });
    const userId = found?.user?.id;
    if (!userId) return null;
    const im = await this.client.conversations.open({ users: userId });
    const conversation = im.channel?.id;
    if (!conversation) throw new Error("Slack opened no direct message conversation");
    return this.post(conversation, delivery, key);
  }

  /** The delivery posted once to a channel (a routing group's), for every member who may decide it. */
  async sendToChannel(channelId: string, delivery: Delivery, key: string): Promise<SentRef> {
    return this.post(channelId, delivery, key);
  }

  async update(
    sent: SentRef,
    outcome: Outcome,
    outcomeOf?: (n: { approvalId: string; runId: string }) => Promise<Outcome | null>,
  ): Promise<void> {
    const s = readSentRef(sent);
    if (s.ns) {
      // A digest, re-rendered with what became of each of its requests (the others keep their buttons).
      let message = deliveryMessage({ type: "digest", notices: s.ns });
      for (const n of s.ns) {
        const o = n.approvalId === outcome.approvalId ? outcome : await outcomeOf?.(n);
        if (o) message = { ...outcomeMessage(o, { title: s.title, blocks: message.blocks }), text: message.text };
      }
      await this.client.chat.update({ channel: s.c, ts: s.ts, ...outcomeMessage(outcome, { title: s.title, blocks: message.blocks }) });
      return;
    }
    const blocks = s.n ? requestBlocks(s.n) : undefined;
    await this.client.chat.update({ channel: s.c, ts: s.ts, ...outcomeMessage(outcome, { title: s.title, url: s.url, blocks }) });
  }

  /** A reply in the thread of a message sent earlier (a comment on its request), as plain text. */
  async reply(sent: SentRef, text: string): Promise<void> {
    const s = readSentRef(sent);
    await this.client.chat.postMessage({ channel: s.c, thread_ts: s.ts, text, mrkdwn: false, unfurl_links: false, unfurl_media: false });
  }

  private async post(channel: string, delivery: Delivery, key: string): Promise<SentRef> {
    const message = deliveryMessage(delivery);
    const r = await this.client.chat.postMessage({
      channel,
      ...message,
      unfurl_links: false,
      unfurl_media: false,
      // The delivery's key rides along, so a message can be matched to its delivery in Slack's own records.
      metadata: { event_type: "afk_notification", event_payload: { key } },
    });
    if (!r.ts) throw new Error("Slack returned no message ts");
    return sentRef({
      c: r.channel ?? channel,
      ts: r.ts,
      title: titleOf(delivery),
      url: urlOf(delivery),
      n: noticeOf(delivery),
      ns: noticesOf(delivery),
    });
  }
}

/** Slack's error code of a failed call (e.g. users_not_found), if it was one. */
export function slackErrorCode(e: unknown): string | null {
  const data = (e as { data?: { error?: unknown } } | null)?.data;
  return typeof data?.error === "string" ? data.error : null;
}

let shared: SlackChannel | null | undefined;

/** This process's Slack channel from the environment (null while Slack is not configured). */
export function slackChannel(): SlackChannel | null {
  if (shared === undefined) {
    const config = slackConfig();
    shared = config ? new SlackChannel(config) : null;
    // Said at start-up rather than left to be found: the dispatcher plans per person, so a group's
    // channel gets nothing yet (docs/slack.md).
    if (config && Object.keys(config.channels).length)
      log.warn("AFK_SLACK_CHANNELS is set, but requests are not posted to group channels yet: each reviewer gets a direct message", {
        groups: Object.keys(config.channels),
      });
  }
  return shared;
}
