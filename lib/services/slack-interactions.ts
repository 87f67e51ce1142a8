// Slack's interactivity requests (app/api/slack/interactions; the channel is lib/notify/slack): Approve,
// Reject (which opens a modal for the reason) and the modal's submission. Each is verified with the
// signing secret first; the Slack user is
// then mapped to the console user with the same verified email and decided through the same decide
// service as every other door, as that user: roles, routing, quorum, separation of duties, the argsHash
// the message carried, the audit. Whoever may not decide is answered privately and nothing is decided.
import "server-only";
import type { WebClient } from "@slack/web-api";
import { z } from "zod";
import { type Actor, actorByEmail } from "../auth/actor.ts";
import { HttpError, UnauthorizedError } from "../auth/errors.ts";
import type { AppContext } from "../context.ts";
import { log } from "../log.ts";
import { decide } from "./decide.ts";
import type { Outcome } from "../notify/channel.ts";
import {
  ACTION,
  approvalOutcome,
  REASON_BLOCK,
  REASON_INPUT,
  REJECT_VIEW,
  buttonValueSchema,
  modalMetaSchema,
  outcomeMessage,
  rejectModal,
} from "../notify/slack/blocks.ts";
import { slackClient, slackErrorCode } from "../notify/slack/channel.ts";
import { type SlackConfig, slackConfig } from "../notify/slack/config.ts";
import { ReplayGuard, verifySlackRequest } from "../notify/slack/signature.ts";

const BODY_MAX = 1_000_000;

const blockSchema = z.looseObject({ type: z.string(), block_id: z.string().optional() });
const blockActionsSchema = z.object({
  type: z.literal("block_actions"),
  user: z.object({ id: z.string().min(1) }),
  trigger_id: z.string().optional(),
  response_url: z.string().optional(),
  container: z.object({ channel_id: z.string().optional(), message_ts: z.string().optional() }).optional(),
  channel: z.object({ id: z.string() }).optional(),
  message: z.object({ ts: z.string().optional(), blocks: z.array(blockSchema).optional() }).optional(),
  actions: z.array(z.object({ action_id: z.string(), block_id: z.string().optional(), value: z.string().optional() })).min(1),
});
const viewSubmissionSchema = z.object({
  type: z.literal("view_submission"),
  user: z.object({ id: z.string().min(1) }),
  view: z.object({
    callback_id: z.string(),
    private_metadata: z.string().default(""),
    state: z.object({ values: z.record(z.string(), z.record(z.string(), z.looseObject({ value: z.string().nullish() }))) }),
  }),
});
type BlockActions = z.infer<typeof blockActionsSchema>;
type ViewSubmission = z.infer<typeof viewSubmissionSchema>;

const displayName = (a: Actor) => a.name || a.email;

/** The console user this Slack user is: the active user with their verified email (401 when none). */
export async function consoleActor(ctx: Pick<AppContext, "db">, client: WebClient, slackUserId: string): Promise<Actor> {
  const { user } = await client.users.info({ user: slackUserId }).catch((e: unknown) => {
    if (slackErrorCode(e) === "user_not_found") return { user: undefined };
    throw e;
  });
  if (!user || user.deleted || user.is_bot) throw new UnauthorizedError("Your Slack account may not decide requests of the console");
  const email = user.profile?.email;
  if (!email || user.is_email_confirmed !== true)
    throw new UnauthorizedError("Your Slack account has no confirmed email, so the console cannot tell who you are");
  try {
    return await actorByEmail(ctx.db, email);
  } catch (e) {
    if (e instanceof UnauthorizedError)
      throw new UnauthorizedError(`No active console user has your Slack email (${email}); ask an admin, or decide in the console`);
    throw e;
  }
}

/** A private answer's words for a refused decision (a server error is logged and answered vaguely). */
function refusal(e: unknown): string {
  if (e instanceof HttpError) return e.message;
  log.error("Slack interaction failed", { error: String(e) });
  return "Something went wrong; open the request in the console";
}

export type SlackInteractions = (req: Request) => Promise<Response>;

/** The interactions endpoint of one configuration on one context. */
export function slackInteractions(
  ctx: AppContext,
  config: SlackConfig,
  opts: { guard?: ReplayGuard; client?: WebClient } = {},
): SlackInteractions {
  const guard = opts.guard ?? new ReplayGuard();
  const client = opts.client ?? slackClient(config);

  // A private answer to the person who clicked: on the interaction's response_url (only Slack's own, or the
  // configured Web API's host), or as an ephemeral message in the conversation.
  async function tellPrivately(p: BlockActions, text: string): Promise<void> {
    const allowed = (url: string) =>
      url.startsWith("https://hooks.slack.com/") || (!!config.apiUrl && new URL(url).origin === new URL(config.apiUrl).origin);
    try {
      if (p.response_url && URL.canParse(p.response_url) && allowed(p.response_url)) {
        const r = await fetch(p.response_url, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ response_type: "ephemeral", replace_original: false, text }),
          redirect: "error",
          signal: AbortSignal.timeout(10_000),
        });
        if (!r.ok) throw new Error(`response_url answered ${r.status}`);
        return;
      }
      const channel = p.container?.channel_id ?? p.channel?.id;
      if (channel) await client.chat.postEphemeral({ channel, user: p.user.id, text });
    } catch (e) {
      log.warn("Slack private answer failed", { error: String(e) });
    }
  }

  async function updateMessage(
    channel: string | undefined,
    ts: string | undefined,
    outcome: Outcome,
    blocks: unknown[] | undefined,
    title: string,
  ) {
    if (!channel || !ts) return;
    await client.chat
      .update({ channel, ts, ...outcomeMessage(outcome, { blocks, title }) })
      .catch((e: unknown) => log.warn("Slack message update failed", { error: String(e) }));
  }

  async function onAction(p: BlockActions): Promise<Response> {
    const action = p.actions[0];
    if (action.action_id !== ACTION.approve && action.action_id !== ACTION.reject) return new Response(null, { status: 200 });
    const value = buttonValueSchema.safeParse(safeJson(action.value));
    if (!value.success) return Response.json({ error: "The button carries no request", field: "actions.0.value" }, { status: 400 });
    const blocks = p.message?.blocks;
    const title = titleOf(blocks);
    const channel = p.container?.channel_id ?? p.channel?.id;
    const ts = p.container?.message_ts ?? p.message?.ts;
    let actor: Actor;
    try {
      actor = await consoleActor(ctx, client, p.user.id);
    } catch (e) {
      await tellPrivately(p, refusal(e));
      return new Response(null, { status: 200 });
    }
    if (action.action_id === ACTION.reject) {
      if (!p.trigger_id) return Response.json({ error: "Reject needs the interaction's trigger_id", field: "trigger_id" }, { status: 400 });
      await client.views
        .open({ trigger_id: p.trigger_id, view: rejectModal({ ...value.data, c: channel, ts, t: title.slice(0, 150) }, title, blocks) })
        .catch(async (e: unknown) => tellPrivately(p, refusal(e)));
      return new Response(null, { status: 200 });
    }
    try {
      const r = await decide(ctx, actor, { approvalId: value.data.a, body: { decision: "approve", argsHash: value.data.h }, via: "slack" });
      await updateMessage(channel, ts, approvalOutcome(r.approval, displayName(actor), "slack"), blocks, title);
    } catch (e) {
      await tellPrivately(p, refusal(e));
    }
    return new Response(null, { status: 200 });
  }

  async function onSubmission(p: ViewSubmission): Promise<Response> {
    if (p.view.callback_id !== REJECT_VIEW) return new Response(null, { status: 200 });
    // Anything wrong is shown in the modal, to this user only: Slack keeps it open with the error.
    const refuse = (text: string) => Response.json({ response_action: "errors", errors: { [REASON_BLOCK]: text.slice(0, 2000) } });
    const meta = modalMetaSchema.safeParse(safeJson(p.view.private_metadata));
    if (!meta.success) return refuse("This form does not name a request");
    const reason = p.view.state.values[REASON_BLOCK]?.[REASON_INPUT]?.value?.trim();
    if (!reason) return refuse("A reason is required to reject");
    try {
      const actor = await consoleActor(ctx, client, p.user.id);
      const r = await decide(ctx, actor, {
        approvalId: meta.data.a,
        body: { decision: "reject", reason, argsHash: meta.data.h },
        via: "slack",
      });
      await updateMessage(
        meta.data.c,
        meta.data.ts,
        approvalOutcome(r.approval, displayName(actor), "slack"),
        meta.data.b,
        meta.data.t ?? "A request",
      );
      return Response.json({ response_action: "clear" });
    } catch (e) {
      return refuse(refusal(e));
    }
  }

  return async (req) => {
    const body = await req.text();
    if (body.length > BODY_MAX) return Response.json({ error: "Body too large" }, { status: 413 });
    const verdict = verifySlackRequest(
      config.signingSecret,
      { timestamp: req.headers.get("x-slack-request-timestamp"), signature: req.headers.get("x-slack-signature") },
      body,
      guard,
    );
    if (!verdict.ok) return Response.json({ error: verdict.why }, { status: 401 });
    const raw = safeJson(new URLSearchParams(body).get("payload"));
    const type = (raw as { type?: unknown } | null)?.type;
    if (type === "block_actions") {
      const p = blockActionsSchema.safeParse(raw);
      return p.success ? onAction(p.data) : invalid(p.error);
    }
    if (type === "view_submission") {
      const p = viewSubmissionSchema.safeParse(raw);
      return p.success ? onSubmission(p.data) : invalid(p.error);
    }
    if (typeof type !== "string")
      return Response.json({ error: "The form's payload is not an interaction", field: "payload" }, { status: 400 });
    // Other interactions (a modal closed, a shortcut) need only the acknowledgement.
    return new Response(null, { status: 200 });
  };
}

function invalid(e: z.ZodError): Response {
  const i = e.issues[0];
  const field = ["payload", ...i.path.map(String)].join(".");
  return Response.json({ error: `${field}: ${i.message}`, field }, { status: 400 });
}

function safeJson(text: string | null | undefined): unknown {
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** The request's title as the message shows it (its header block). */
function titleOf(blocks: unknown[] | undefined): string {
  const header = (blocks as { type?: string; text?: { text?: string } }[] | undefined)?.find((b) => b.type === "header");
  return header?.text?.text ?? "A request";
}

/** The route's handler: 404 while Slack is not configured; one handler (and replay memory) per process. */
export function slackInteractionsRoute(context: () => AppContext): (req: Request) => Promise<Response> {
  let handler: SlackInteractions | null = null;
  return async (req) => {
    try {
      const config = slackConfig();
      if (!config) return Response.json({ error: "Slack is not configured" }, { status: 404 });
      handler ??= slackInteractions(context(), config);
      return await handler(req);
    } catch (e) {
      log.error("Slack interaction failed", { error: String(e) });
      return Response.json({ error: "Internal error" }, { status: 500 });
    }
  };
}
