// Slack: the channel posts a request as a Block Kit message (a direct message, a routing group's channel)
// through the official Web API client pointed at a local server that speaks Slack's wire format; Approve
// and Reject, signed exactly as Slack signs interaction payloads and POSTed over HTTP to the interactions
// handler, decide through the decide service as the console user with the Slack user's verified email;
// everything else (forged, stale, replayed, unmapped, disabled, wrong group or role, stale arguments) is
// refused with nothing decided.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Actor } from "@/lib/auth/actor";
import type { Notice } from "@/lib/notify/channel";
import { ACTION, REASON_BLOCK, REASON_INPUT } from "@/lib/notify/slack/blocks";
import { readSentRef, SlackChannel } from "@/lib/notify/slack/channel";
import type { SlackConfig } from "@/lib/notify/slack/config";
import { slackInteractions } from "@/lib/services/slack-interactions";
import { slackSignature } from "@/lib/notify/slack/signature";
import { decide } from "@/lib/services/decide";
import { getRunView } from "@/lib/services/run-view";
import { startRun } from "@/lib/services/start";
import { createUser, updateUser } from "@/lib/services/users";
import { admin } from "../helpers/actors";
import { databaseWithContext, providers } from "../helpers/databases";
import { testContext } from "../helpers/context";
import { SlackWire } from "../helpers/slack-wire";

const TOKEN = "xoxb-test-0123456789";
const SECRET = "8f742231b10e8888abcd99yyyzzz85a5";
const sub: Actor = { id: "u-sub", email: "sub@example.com", name: "S", role: "submitter" };

describe.each(providers)("Slack on %s", (provider) => {
  const h = databaseWithContext(provider);
  const wire = new SlackWire(TOKEN, [
    { id: "UANA", email: "ana@example.com", name: "ana" },
    { id: "UBEN", email: "ben@example.com", name: "ben" },
    { id: "UOPS", email: "olga@example.com", name: "olga" },
    { id: "UOPR", email: "oscar@example.com", name: "oscar" },
    { id: "UDIS", email: "dora@example.com", name: "dora" },
    { id: "UGHOST", email: "ghost@example.com", name: "ghost" },
    { id: "UUNCONF", email: "ana@example.com", name: "not ana", is_email_confirmed: false },
  ]);
  let config: SlackConfig;
  let channel: SlackChannel;
  let endpoint: Server;
  let endpointUrl = "";
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    await wire.start();
    config = { token: TOKEN, signingSecret: SECRET, apiUrl: wire.apiUrl, channels: { finance: "C0FIN", ops: "C0OPS" } };
    channel = new SlackChannel(config);
    for (const [email, name, role, groups] of [
      ["ana@example.com", "Ana", "reviewer", ["finance"]],
      ["ben@example.com", "Ben", "reviewer", ["finance"]],
      ["olga@example.com", "Olga", "reviewer", ["ops"]],
      ["oscar@example.com", "Oscar", "operator", []],
      ["dora@example.com", "Dora", "reviewer", ["finance"]],
    ] as const)
      ids[email] = (await createUser(h.ctx, admin, { body: { email, name, role, groups, password: "password-123" } })).id;
    await updateUser(h.ctx, admin, { userId: ids["dora@example.com"], body: { disabled: true } });
    // The interactions handler behind a real HTTP server, as the route serves it.
    const handle = slackInteractions(h.ctx, config);
    endpoint = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const headers = new Headers();
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v);
      const answer = await handle(new Request(`http://127.0.0.1${req.url}`, { method: "POST", headers, body: Buffer.concat(chunks) }));
      res.writeHead(answer.status, Object.fromEntries(answer.headers));
      res.end(Buffer.from(await answer.arrayBuffer()));
    });
    await new Promise<void>((resolve) => endpoint.listen(0, "127.0.0.1", resolve));
    endpointUrl = `http://127.0.0.1:${(endpoint.address() as AddressInfo).port}/api/slack/interactions`;
  });
  afterAll(async () => {
    await new Promise((resolve) => endpoint?.close(resolve));
    await wire.stop();
  });

  const viewer = (): Actor => ({
    id: ids["ana@example.com"],
    email: "ana@example.com",
    name: "Ana",
    role: "reviewer",
    groups: ["finance"],
  });

  /** A paused run and its request as the dispatcher hands it to a channel. */
  async function pausedRefund(amount = 250_000) {
    const { id } = await startRun(h.ctx, sub, {
      body: { agent: "refund-desk", input: { order_id: "ORD-1001", amount_cents: amount, reason: "Lost" } },
    });
    await h.ctx.worker.idle();
    const view = await getRunView(h.ctx, viewer(), { runId: id });
    const refund = view.approvals.find((a) => a.tool_name === "issue_refund")!;
    const notify = view.approvals.find((a) => a.tool_name === "notify_customer")!;
    const notice: Notice = {
      approvalId: refund.id,
      runId: id,
      agent: "refund-desk",
      kind: "tool_call",
      title: "Approve issue_refund",
      fields: [
        { label: "Order", value: "ORD-1001" },
        { label: "Amount", value: "€2,500.00" },
        { label: "Reason", value: "Lost <b>" },
      ],
      requestedBy: sub.email,
      deadline: null,
      url: `http://console.test/runs/${id}#${refund.id}`,
      routingGroups: ["finance"],
      argsHash: refund.argsHash,
    };
    return { runId: id, refund, notify, notice };
  }

  let seq = 0;
  /** A Slack interaction POST: the payload form-encoded and signed with the signing secret at `at` (seconds). */
  async function interact(
    payload: Record<string, unknown>,
    opts: { secret?: string; at?: number; raw?: { body: string; headers: Record<string, string> } } = {},
  ) {
    const body = opts.raw?.body ?? new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
    const at = opts.at ?? Math.floor(Date.now() / 1000);
    const headers = opts.raw?.headers ?? {
      "content-type": "application/x-www-form-urlencoded",
      "x-slack-request-timestamp": String(at),
      "x-slack-signature": slackSignature(opts.secret ?? SECRET, at, body),
    };
    const res = await fetch(endpointUrl, { method: "POST", headers, body });
    const text = await res.text();
    return { status: res.status, json: text ? JSON.parse(text) : null, sent: { body, headers } };
  }

  /** What Slack sends when a user clicks a button of a posted message. */
  function click(user: string, msg: { channel: string; ts: string; blocks: Record<string, unknown>[] }, action: string) {
    const actions = msg.blocks.find((b) => b.type === "actions") as { elements: { action_id: string; value?: string }[] } | undefined;
    const button = actions?.elements.find((e) => e.action_id === action);
    if (!button) throw new Error(`No ${action} button`);
    const n = ++seq;
    return {
      type: "block_actions",
      user: { id: user, username: user.toLowerCase(), team_id: "T1" },
      team: { id: "T1", domain: "acme" },
      api_app_id: "A1",
      trigger_id: `trigger-${n}`,
      response_url: wire.responseUrl(`r${n}`),
      container: { type: "message", message_ts: msg.ts, channel_id: msg.channel, is_ephemeral: false },
      channel: { id: msg.channel, name: "finance" },
      message: { type: "message", ts: msg.ts, text: "…", blocks: msg.blocks },
      actions: [{ type: "button", action_id: action, block_id: "afk_decide", value: button.value, action_ts: `${Date.now() / 1000}` }],
    };
  }

  const auditOf = (runId: string) => h.t.db.auditEvent.findMany({ where: { targetId: runId, action: { startsWith: "approval." } } });
  const statusOf = async (runId: string, approvalId: string) =>
    (await getRunView(h.ctx, viewer(), { runId })).approvals.find((a) => a.id === approvalId)?.status;
  const privateAnswer = (n: number) => wire.responses.find((r) => r.path === `/response/r${n}`)?.body;
  const texts = (blocks: Record<string, unknown>[]) => JSON.stringify(blocks);

  it("posts a request as a direct message and to the group's channel; Approve decides as the mapped user, the run resumes, the messages update", async () => {
    const { runId, refund, notify, notice } = await pausedRefund();
    const dm = await channel.send(
      { userId: ids["ana@example.com"], email: "ana@example.com", name: "Ana" },
      { type: "request", notice },
      "k-dm",
    );
    expect(wire.callsOf("users.lookupByEmail").at(-1)?.args).toMatchObject({ email: "ana@example.com" });
    expect(wire.callsOf("conversations.open").at(-1)?.args).toMatchObject({ users: "UANA" });
    const dmRef = readSentRef(dm!);
    expect(dmRef.c).toBe("DANA");
    const [group] = channel.groupChannels(notice.routingGroups);
    expect(group).toBe("C0FIN");
    const posted = readSentRef(await channel.sendToChannel(group, { type: "request", notice }, "k-group"));
    // Every call carried the bot token as its bearer, never in the body.
    expect(wire.calls.every((c) => c.auth === `Bearer ${TOKEN}` && !("token" in c.args))).toBe(true);

    const msg = wire.message("C0FIN", posted.ts);
    expect(msg.text).toBe("Approve issue_refund");
    expect(msg.metadata).toMatchObject({ event_type: "afk_notification", event_payload: { key: "k-group" } });
    expect(msg.blocks[0]).toMatchObject({ type: "header", text: { text: "Approve issue_refund" } });
    expect(texts(msg.blocks)).toContain("€2,500.00");
    expect(texts(msg.blocks)).toContain("Lost &lt;b&gt;");
    expect(texts(msg.blocks)).toContain("routed to finance");
    const actions = msg.blocks.find((b) => b.type === "actions") as { elements: Record<string, unknown>[] };
    expect(actions.elements.map((e) => e.action_id)).toEqual([ACTION.approve, ACTION.reject, ACTION.open]);
    expect(JSON.parse(String(actions.elements[0].value))).toEqual({ a: refund.id, h: refund.argsHash });
    expect(actions.elements[2]).toMatchObject({ url: notice.url });

    // The other request of the step is decided in the console; the refund's Approve in Slack completes it.
    await decide(h.ctx, viewer(), { approvalId: notify.id, body: { decision: "approve", argsHash: notify.argsHash } });
    const r = await interact(click("UBEN", msg, ACTION.approve));
    expect(r.status).toBe(200);
    expect(await statusOf(runId, refund.id)).toBe("approved");
    const audit = (await auditOf(runId)).find((a) => a.data.includes(refund.id));
    expect(audit).toMatchObject({ action: "approval.approve", actorEmail: "ben@example.com" });
    // Decisions resume runs: the run completes by itself, the refund issued once.
    await h.ctx.worker.idle();
    expect((await getRunView(h.ctx, viewer(), { runId })).run.state).toBe("completed");
    expect(await h.t.db.refund.count({ where: { runId } })).toBe(1);

    // The message clicked is updated in place: its fields stay, the buttons go, the outcome is said.
    const updated = wire.message("C0FIN", posted.ts);
    expect(texts(updated.blocks)).toContain("Approved by Ben in Slack");
    expect(texts(updated.blocks)).toContain("€2,500.00");
    expect(updated.blocks.some((b) => b.type === "actions")).toBe(false);
    // The dispatcher updates the other messages of the request through the channel.
    await channel.update(dm!, { approvalId: refund.id, status: "approved", by: "Ben", via: "slack" });
    const dmNow = wire.message("DANA", dmRef.ts);
    expect(dmNow.text).toBe("Approve issue_refund: :white_check_mark: Approved by Ben in Slack");
    expect(texts(dmNow.blocks)).toContain("€2,500.00");
    expect(dmNow.blocks.some((b) => b.type === "actions")).toBe(false);
  });

  it("with Slack configured, a reviewer who never opened Settings gets the request as a direct message (Slack is a default channel)", async () => {
    const ctx = testContext(h.t.db, {
      notify: { channels: [new SlackChannel(config)], baseUrl: "http://console.test", gatherMs: 20, burstMs: 0 },
    });
    try {
      const before = wire.callsOf("chat.postMessage").length;
      const { id } = await startRun(ctx, sub, {
        body: { agent: "refund-desk", input: { order_id: "ORD-1001", amount_cents: 250_000, reason: "Lost" } },
      });
      await ctx.worker.idle();
      const posted = () => wire.callsOf("chat.postMessage").slice(before);
      // Ana and Ben (finance, no preferences saved) each get one digest of the step's two requests; Olga (ops)
      // the notification, which she may decide.
      await expect
        .poll(
          () =>
            posted()
              .map((c) => String(c.args.channel))
              .sort(),
          { timeout: 5000 },
        )
        .toEqual(["DANA", "DBEN", "DOPS"]);
      expect(JSON.stringify(posted()[0].args.blocks)).toContain(encodeURIComponent(id));
      // Ana approves both from her digest: the click's own update and the dispatcher's say the same (who by
      // name, and that it was in Slack), so whichever Slack applies last, the message is right.
      const handle = slackInteractions(ctx, config);
      const dm = posted().find((c) => c.args.channel === "DANA")!;
      const ts = [...wire.messages.values()].find(
        (m) => m.channel === "DANA" && JSON.stringify(m.blocks) === JSON.stringify(dm.args.blocks),
      )!.ts;
      const updatesBefore = wire.callsOf("chat.update").length;
      for (const item of ["afk_decide.0", "afk_decide.1"]) {
        const base = click("UANA", wire.message("DANA", ts), ACTION.approve);
        const block = wire.message("DANA", ts).blocks.find((b) => b.block_id === item) as { elements: { value?: string }[] };
        const payload = { ...base, actions: [{ ...base.actions[0], block_id: item, value: block.elements[0].value }] };
        const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
        const at = Math.floor(Date.now() / 1000);
        const headers = { "x-slack-request-timestamp": String(at), "x-slack-signature": slackSignature(SECRET, at, body) };
        expect((await handle(new Request("http://console.test/api/slack/interactions", { method: "POST", headers, body }))).status).toBe(
          200,
        );
        // Both updates of this click (the click's and the dispatcher's) before the next click.
        await expect
          .poll(
            () =>
              wire
                .callsOf("chat.update")
                .slice(updatesBefore)
                .filter((c) => c.args.ts === ts).length,
          )
          .toBeGreaterThanOrEqual(item.endsWith("0") ? 2 : 4);
      }
      const updates = wire
        .callsOf("chat.update")
        .slice(updatesBefore)
        .filter((c) => c.args.ts === ts);
      for (const u of updates) {
        expect(JSON.stringify(u.args.blocks)).toContain("Approved by Ana");
        expect(JSON.stringify(u.args.blocks)).not.toContain("in the console");
        expect(JSON.stringify(u.args.blocks)).not.toContain("ana@example.com");
      }
      // After the second click both items say so and no buttons are left, in both updates.
      for (const u of updates.slice(-2)) {
        expect((u.args.blocks as { type: string }[]).some((b) => b.type === "actions")).toBe(false);
        expect(JSON.stringify(u.args.blocks).match(/Approved by Ana/g)).toHaveLength(2);
      }
      await ctx.worker.idle();
      expect((await getRunView(h.ctx, viewer(), { runId: id })).run.state).toBe("completed");
    } finally {
      ctx.notifier?.stop();
      await ctx.worker.idle();
    }
  });

  it("a digest (the two requests of one step) has Approve and Reject per request; Approve in it decides that one and updates only its item", async () => {
    const { runId, refund, notify, notice } = await pausedRefund();
    const other: Notice = {
      ...notice,
      approvalId: notify.id,
      title: "Approve notify_customer",
      routingGroups: [],
      argsHash: notify.argsHash,
    };
    const dm = await channel.send(
      { userId: ids["ana@example.com"], email: "ana@example.com", name: "Ana" },
      { type: "digest", notices: [notice, other] },
      "k-digest-buttons",
    );
    const ref = readSentRef(dm!);
    const msg = wire.message(ref.c, ref.ts);
    expect(msg.text).toBe("2 requests wait for you");
    const itemActions = (m: typeof msg) =>
      m.blocks.filter((b) => b.type === "actions") as { block_id: string; elements: { value?: string }[] }[];
    expect(itemActions(msg).map((b) => [b.block_id, JSON.parse(String(b.elements[0].value)).a])).toEqual([
      ["afk_decide.0", refund.id],
      ["afk_decide.1", notify.id],
    ]);
    // What Slack sends for a click on the first item's Approve: the clicked block's id and the button's value.
    const base = click("UANA", msg, ACTION.approve);
    const r = await interact({ ...base, actions: [{ ...base.actions[0], block_id: "afk_decide.0" }] });
    expect(r.status).toBe(200);
    expect(await statusOf(runId, refund.id)).toBe("approved");
    expect(await statusOf(runId, notify.id)).toBe("pending");
    const updated = wire.message(ref.c, ref.ts);
    expect(itemActions(updated).map((b) => b.block_id)).toEqual(["afk_decide.1"]);
    const line = updated.blocks.findIndex((b) => b.block_id === "afk_outcome.0");
    expect(updated.blocks[line - 1]).toMatchObject({ block_id: "afk_item.0" });
    expect(texts(updated.blocks)).toContain("Approved by Ana in Slack");
    // The dispatcher's update (a decision taken anywhere) re-renders the digest the same way: the other
    // request keeps its buttons.
    await channel.update(dm!, { approvalId: refund.id, status: "approved", by: "Ana", via: "slack" });
    const again = wire.message(ref.c, ref.ts);
    expect(itemActions(again).map((b) => b.block_id)).toEqual(["afk_decide.1"]);
    expect(texts(again.blocks)).toContain("Approved by Ana in Slack");
  });

  it("Reject opens a modal; its submission rejects with the reason as the mapped user and updates the message", async () => {
    const { runId, refund, notice } = await pausedRefund();
    const posted = readSentRef(await channel.sendToChannel("C0FIN", { type: "request", notice }, "k-rej"));
    const msg = wire.message("C0FIN", posted.ts);
    const clicked = click("UANA", msg, ACTION.reject);
    expect((await interact(clicked)).status).toBe(200);
    const opened = wire.callsOf("views.open").at(-1)!.args as {
      trigger_id: string;
      view: { callback_id: string; private_metadata: string };
    };
    expect(opened.trigger_id).toBe(clicked.trigger_id);
    expect(opened.view.callback_id).toBe("afk_reject");
    // Opening the modal decided nothing.
    expect(await statusOf(runId, refund.id)).toBe("pending");

    const submit = (reason: string) => ({
      type: "view_submission",
      user: { id: "UANA", team_id: "T1" },
      team: { id: "T1" },
      view: {
        id: "V1",
        callback_id: opened.view.callback_id,
        private_metadata: opened.view.private_metadata,
        state: { values: { [REASON_BLOCK]: { [REASON_INPUT]: { type: "plain_text_input", value: reason } } } },
      },
    });
    // An empty reason stays in the modal with its error.
    const empty = await interact(submit("   "));
    expect(empty.json).toEqual({ response_action: "errors", errors: { [REASON_BLOCK]: "A reason is required to reject" } });
    const done = await interact(submit("Customer already refunded by bank"));
    expect(done.json).toEqual({ response_action: "clear" });
    const view = await getRunView(h.ctx, viewer(), { runId });
    expect(view.approvals.find((a) => a.id === refund.id)).toMatchObject({
      status: "rejected",
      decisions: [{ by: "ana@example.com", decision: "reject", reason: "Customer already refunded by bank" }],
    });
    expect((await auditOf(runId)).map((a) => [a.action, a.actorEmail])).toEqual([["approval.reject", "ana@example.com"]]);
    const updated = wire.message("C0FIN", posted.ts);
    expect(texts(updated.blocks)).toContain("Rejected by Ana in Slack");
    // The message keeps what it showed (the modal carried it), without its buttons.
    expect(texts(updated.blocks)).toContain("€2,500.00");
    expect(updated.blocks.some((b) => b.type === "actions")).toBe(false);
  });

  it("a forged signature, a stale timestamp and a replayed payload are refused (401) with nothing decided", async () => {
    const { runId, refund, notice } = await pausedRefund();
    const posted = readSentRef(await channel.sendToChannel("C0FIN", { type: "request", notice }, "k-sig"));
    const payload = click("UANA", wire.message("C0FIN", posted.ts), ACTION.approve);

    const forged = await interact(payload, { secret: "another-secret-of-32-characters!" });
    expect([forged.status, forged.json.error]).toEqual([401, "The signature does not match"]);
    const stale = await interact(payload, { at: Math.floor(Date.now() / 1000) - 301 });
    expect([stale.status, stale.json.error]).toEqual([401, "The request's timestamp is more than five minutes away"]);
    // The body changed after signing (another approval swapped in): the signature no longer matches.
    const ok = await interact(payload);
    const tampered = await interact(payload, {
      raw: { body: ok.sent.body.replace("UANA", "UBEN"), headers: ok.sent.headers },
    });
    expect(tampered.status).toBe(401);
    const unsigned = await fetch(endpointUrl, {
      method: "POST",
      body: ok.sent.body,
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(unsigned.status).toBe(401);
    expect(await statusOf(runId, refund.id)).toBe("approved");
    const before = (await auditOf(runId)).length;
    const replayed = await interact(payload, { raw: ok.sent });
    expect([replayed.status, replayed.json.error]).toEqual([401, "This request was already received"]);
    expect((await auditOf(runId)).length).toBe(before);
  });

  it("the forged and stale requests decided nothing", async () => {
    const { runId, refund, notice } = await pausedRefund();
    const posted = readSentRef(await channel.sendToChannel("C0FIN", { type: "request", notice }, "k-sig2"));
    const payload = click("UANA", wire.message("C0FIN", posted.ts), ACTION.approve);
    expect((await interact(payload, { secret: "another-secret-of-32-characters!" })).status).toBe(401);
    expect((await interact(payload, { at: Math.floor(Date.now() / 1000) - 301 })).status).toBe(401);
    expect((await interact(payload, { at: Math.floor(Date.now() / 1000) + 301 })).status).toBe(401);
    expect(await statusOf(runId, refund.id)).toBe("pending");
    expect(await auditOf(runId)).toEqual([]);
    expect(wire.message("C0FIN", posted.ts).blocks.some((b) => b.type === "actions")).toBe(true);
  });

  it("an unmapped, unconfirmed, disabled, wrong-group or wrong-role Slack user is answered privately and nothing is decided", async () => {
    const { runId, refund, notice } = await pausedRefund();
    const posted = readSentRef(await channel.sendToChannel("C0FIN", { type: "request", notice }, "k-who"));
    const msg = wire.message("C0FIN", posted.ts);
    const cases: [string, string][] = [
      ["UGHOST", "No active console user has your Slack email (ghost@example.com); ask an admin, or decide in the console"],
      ["UNOBODY", "Your Slack account may not decide requests of the console"],
      ["UUNCONF", "Your Slack account has no confirmed email, so the console cannot tell who you are"],
      ["UDIS", "No active console user has your Slack email (dora@example.com); ask an admin, or decide in the console"],
      ["UOPS", "This approval is routed to finance; you are in none of them"],
      ["UOPR", "Your role may not do this"],
    ];
    for (const [user, words] of cases) {
      const payload = click(user, msg, ACTION.approve);
      const r = await interact(payload);
      expect(r.status).toBe(200);
      const n = Number(payload.trigger_id.split("-")[1]);
      expect([user, privateAnswer(n)]).toEqual([user, { response_type: "ephemeral", replace_original: false, text: words }]);
    }
    // Reject by someone who may not decide: answered privately, no modal opened.
    const modals = wire.callsOf("views.open").length;
    const rej = click("UGHOST", msg, ACTION.reject);
    await interact(rej);
    expect(privateAnswer(Number(rej.trigger_id.split("-")[1]))?.text).toMatch(/^No active console user/);
    expect(wire.callsOf("views.open").length).toBe(modals);

    expect(await statusOf(runId, refund.id)).toBe("pending");
    expect(await auditOf(runId)).toEqual([]);
    expect(wire.message("C0FIN", posted.ts).blocks).toEqual(msg.blocks);
  });

  it("a quorum's vote updates the count; arguments edited in the console since the message make its Approve stale", async () => {
    const { id: runId } = await startRun(h.ctx, sub, {
      body: { agent: "deploy-bot", input: { service: "billing", version: "1.4.2", environment: "production" } },
    });
    await h.ctx.worker.idle();
    const deploy = (await getRunView(h.ctx, viewer(), { runId })).approvals.find((a) => a.tool_name === "deploy")!;
    expect(deploy.quorum).toBe(2);
    const notice: Notice = {
      approvalId: deploy.id,
      runId,
      agent: "deploy-bot",
      kind: "tool_call",
      title: "Approve deploy",
      fields: [{ label: "Version", value: "1.4.2" }],
      requestedBy: sub.email,
      deadline: "2026-12-31T12:00:00.000Z",
      url: `http://console.test/runs/${runId}`,
      routingGroups: [],
      argsHash: deploy.argsHash,
    };
    const first = readSentRef(await channel.sendToChannel("C0OPS", { type: "request", notice }, "k-q1"));
    const second = readSentRef(await channel.sendToChannel("C0OPS", { type: "reminder", notice, count: 1 }, "k-q2"));
    expect(texts(wire.message("C0OPS", second.ts).blocks)).toContain("Reminder 1");
    expect(texts(wire.message("C0OPS", first.ts).blocks)).toContain("<!date^1798718400^");

    // Olga's vote from Slack: 1 of 2; the message keeps its buttons for the second reviewer.
    await interact(click("UOPS", wire.message("C0OPS", first.ts), ACTION.approve));
    const counted = wire.message("C0OPS", first.ts);
    expect(texts(counted.blocks)).toContain("1 of 2 approvals (latest by Olga in Slack); it still waits for 1 more");
    expect(counted.blocks.some((b) => b.type === "actions")).toBe(true);

    // Ana edits the version in the console while approving: the reminder's buttons carry the old hash.
    await decide(h.ctx, viewer(), {
      approvalId: deploy.id,
      body: { decision: "approve", args: { service: "billing", version: "1.4.3", environment: "production" }, argsHash: deploy.argsHash },
    });
    const before = await auditOf(runId);
    const stale = click("UBEN", wire.message("C0OPS", second.ts), ACTION.approve);
    await interact(stale);
    expect(privateAnswer(Number(stale.trigger_id.split("-")[1]))?.text).toBe(
      "The arguments changed since you looked (another reviewer edited them); review them again",
    );
    expect(await auditOf(runId)).toHaveLength(before.length);
    const view = (await getRunView(h.ctx, viewer(), { runId })).approvals.find((a) => a.id === deploy.id)!;
    expect(view.decisions.map((d) => d.by)).toEqual(["olga@example.com", "ana@example.com"]);
  });

  it("digests and escalations are rendered; a reviewer not in the workspace is not reachable by DM", async () => {
    const { notice } = await pausedRefund();
    const digest = readSentRef(
      await channel.sendToChannel("C0FIN", { type: "digest", notices: Array.from({ length: 25 }, () => notice) }, "k-digest"),
    );
    const d = wire.message("C0FIN", digest.ts);
    expect(d.text).toBe("25 requests wait for you");
    expect(d.blocks.filter((b) => b.type === "section")).toHaveLength(20);
    expect(texts(d.blocks)).toContain("5 more in the console");
    const esc = readSentRef(await channel.sendToChannel("C0FIN", { type: "escalation", notice, from: "finance" }, "k-esc"));
    expect(texts(wire.message("C0FIN", esc.ts).blocks)).toContain("Escalated from finance");
    // A question is answered on its card: no Approve/Reject, only the link.
    const q = readSentRef(await channel.sendToChannel("C0FIN", { type: "request", notice: { ...notice, kind: "question" } }, "k-q"));
    const qa = wire.message("C0FIN", q.ts).blocks.find((b) => b.type === "actions") as { elements: { action_id: string }[] };
    expect(qa.elements.map((e) => e.action_id)).toEqual([ACTION.open]);
    expect(await channel.send({ userId: "x", email: "nobody@example.com", name: null }, { type: "request", notice }, "k-none")).toBeNull();
  });
});
