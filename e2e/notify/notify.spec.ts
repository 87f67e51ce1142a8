// Issue 41's "done when", from outside: the console's production server (next start, a fresh SQLite
// database, port E2E_PORT + 7) with its email pointed at a real SMTP server (smtp-server; what arrives is
// parsed with mailparser) and its Slack Web API at a local server that speaks Slack's wire format
// (tests/helpers/slack-wire.ts, the official client talks to it), both in this test process. A routed
// refund pauses: the finance reviewer gets an email and a Slack direct message within seconds (the
// latencies are printed). A second refund's messages are held back (AFK_NOTIFY_BURST_S after the first) and
// the server is SIGKILLed in that wait, then started again on the same database: exactly one email and one
// Slack message per recipient. Approve pressed in Slack (interaction payloads signed as Slack signs them,
// POSTed to /api/slack/interactions) resumes the first run to completion, the message is updated in place
// and the audit log names the reviewer. A forged and a replayed payload are refused (401), nothing decided.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { createHmac } from "node:crypto";
import path from "node:path";
import { type APIRequestContext, expect, test } from "@playwright/test";
import Database from "better-sqlite3";
import { SlackWire, type WireMessage } from "../../tests/helpers/slack-wire";
import { smtpServer } from "../../tests/helpers/smtp";
import { apiSession } from "../helpers";
import { responseValidator } from "../openapi";

const root = path.resolve(import.meta.dirname, "../..");
const PORT = Number(process.env.E2E_PORT ?? 3100) + 7;
const URL = `http://localhost:${PORT}`;
const DB_FILE = "data/e2e-notify.db";
const TOKEN = "xoxb-e2e-notify-0123456789";
const SECRET = "e2e-notify-signing-secret-0123456789";
// The least time between two messages to one person: the second refund's wait, in which the server dies.
const BURST_S = 20;
const REVIEWER = "reviewer@example.com";
// The seeded users (scripts/seed.ts) as members of the Slack workspace, with the same confirmed emails.
const SLACK_USERS = ["admin", "operator", "reviewer", "submitter"].map((r) => ({
  id: `U${r.toUpperCase()}`,
  email: `${r}@example.com`,
  name: r,
}));
const DM_OF_REVIEWER = "DREVIEWER";

type Approval = { id: string; tool_name: string; status: string; requested_at_ms: number };

let smtp: Awaited<ReturnType<typeof smtpServer>>;
const wire = new SlackWire(TOKEN, SLACK_USERS);
let server: ChildProcess | null = null;
let serverLog = "";

const env = () => ({
  ...process.env,
  DATABASE_URL: `file:./${DB_FILE}`,
  NEXTAUTH_URL: URL,
  AFK_DATA_DIR: "data",
  NODE_ENV: "production" as const,
  AFK_SEED_DEMO_RUNS: "0",
  AFK_SMTP_URL: smtp.url,
  AFK_MAIL_FROM: "AFK Console <afk@console.test>",
  AFK_NOTIFY_POLL_MS: "250",
  AFK_NOTIFY_BURST_S: String(BURST_S),
  AFK_SLACK_BOT_TOKEN: TOKEN,
  AFK_SLACK_SIGNING_SECRET: SECRET,
  AFK_SLACK_API_URL: wire.apiUrl,
});

async function startServer() {
  // Its own process group, so that a kill reaches next start's server whichever process it runs in.
  server = spawn(process.execPath, [path.join(root, "node_modules/next/dist/bin/next"), "start", "-p", String(PORT)], {
    cwd: root,
    env: env(),
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  for (const s of [server.stdout, server.stderr]) s?.on("data", (d) => (serverLog = (serverLog + d).slice(-20_000)));
  const pid = server.pid;
  process.once("exit", () => {
    try {
      if (pid) process.kill(-pid, "SIGKILL");
    } catch {}
  });
  for (let i = 0; ; i++) {
    if (
      await fetch(`${URL}/api/health`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return;
    if (i > 240) throw new Error(`the notify spec's server did not start:\n${serverLog}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function killServer(signal: NodeJS.Signals) {
  const s = server;
  if (!s?.pid || s.exitCode !== null) return;
  const gone = new Promise((r) => s.once("exit", r));
  try {
    process.kill(-s.pid, signal);
  } catch {}
  await gone;
  server = null;
}

/** What Slack POSTs to the interactions URL: the payload form-encoded, signed v0 with the app's secret. */
function signed(payload: Record<string, unknown>, secret = SECRET, at = Math.floor(Date.now() / 1000)) {
  const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
  const signature = `v0=${createHmac("sha256", secret).update(`v0:${at}:${body}`).digest("hex")}`;
  return {
    body,
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      "x-slack-request-timestamp": String(at),
      "x-slack-signature": signature,
    },
  };
}
// Every answer to Slack is checked against the OpenAPI document (the openapi e2e has no Slack app to ask).
let contract: ReturnType<typeof responseValidator> | null = null;
const contractProblems: string[] = [];
async function post(req: ReturnType<typeof signed>) {
  contract ??= responseValidator(await (await fetch(`${URL}/api/openapi.json`)).json());
  const res = await fetch(`${URL}/api/slack/interactions`, { method: "POST", headers: req.headers, body: req.body });
  const body = await res
    .clone()
    .json()
    .catch(() => null);
  const wrong = contract.check("POST", "/api/slack/interactions", res.status, body);
  if (wrong) contractProblems.push(wrong);
  return res;
}

/** A click on Approve of the item of a message (a request or a digest) that decides this approval. */
let clicks = 0;
function approveClick(user: string, msg: WireMessage, approvalId: string) {
  const block = msg.blocks.find(
    (b) =>
      b.type === "actions" &&
      (b.elements as { action_id: string; value?: string }[]).some(
        (e) => e.action_id === "afk_approve" && JSON.parse(e.value ?? "{}").a === approvalId,
      ),
  ) as { block_id: string; elements: { action_id: string; value?: string }[] } | undefined;
  if (!block) throw new Error(`No Approve for ${approvalId} in ${JSON.stringify(msg.blocks)}`);
  const button = block.elements.find((e) => e.action_id === "afk_approve")!;
  const n = ++clicks;
  return {
    type: "block_actions",
    user: { id: user, username: user.toLowerCase(), team_id: "T1" },
    team: { id: "T1", domain: "acme" },
    api_app_id: "A1",
    trigger_id: `trigger-${n}`,
    response_url: wire.responseUrl(`r${n}`),
    container: { type: "message", message_ts: msg.ts, channel_id: msg.channel, is_ephemeral: false },
    channel: { id: msg.channel, name: "directmessage" },
    message: { type: "message", ts: msg.ts, text: msg.text, blocks: msg.blocks },
    actions: [
      { type: "button", action_id: "afk_approve", block_id: block.block_id, value: button.value, action_ts: `${Date.now() / 1000}` },
    ],
  };
}

const runOf = async (api: APIRequestContext, id: string) =>
  (await (await api.get(`/api/runs/${encodeURIComponent(id)}`)).json()) as { run: { state: string }; approvals: Approval[] };
const about = (runId: string) => encodeURIComponent(runId);
const mailsFor = (runId: string) => smtp.received.filter((m) => String(m.mail.text).includes(about(runId)));
const dmsFor = (runId: string) => wire.callsOf("chat.postMessage").filter((c) => JSON.stringify(c.args.blocks).includes(about(runId)));
function countBy(xs: string[]): Record<string, number> {
  const m: Record<string, number> = {};
  for (const x of xs) m[x] = (m[x] ?? 0) + 1;
  return m;
}
const auditOf = async (api: APIRequestContext, runId: string) =>
  (
    (await (await api.get(`/api/audit?targetId=${encodeURIComponent(runId)}`)).json()) as {
      events: { action: string; actorEmail: string | null }[];
    }
  ).events;

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  test.setTimeout(180_000);
  smtp = await smtpServer();
  await wire.start();
  execFileSync(process.execPath, ["scripts/db.mjs", "reset"], { cwd: root, env: env(), stdio: "pipe" });
  await startServer();
});

test.afterAll(async () => {
  await killServer("SIGTERM");
  await wire.stop();
  await smtp?.close();
});

test.afterEach(async () => {
  const info = test.info();
  if (info.status !== info.expectedStatus) await info.attach("server.log", { body: serverLog, contentType: "text/plain" });
});

test("a routed refund reaches the finance reviewer by email and Slack; a kill before the send sends once; Approve in Slack resumes the run; forged and replayed payloads decide nothing", async () => {
  test.setTimeout(150_000);
  const submitter = await apiSession(URL, "submitter");
  const admin = await apiSession(URL, "admin");
  const refund = async (order: string) => {
    const res = await submitter.post("/api/runs", {
      data: { agent: "refund-desk", input: { order_id: order, amount_cents: 250_000, reason: "Whole order lost" } },
    });
    expect(res.status(), await res.text()).toBe(201);
    const id = (await res.json()).id as string;
    await expect.poll(async () => (await runOf(admin, id)).run.state, { timeout: 30_000 }).toBe("paused");
    return id;
  };

  // 1. A refund above finance's threshold (1,000.00) pauses, routed to finance.
  const first = await refund("ORD-1001");
  const firstApprovals = (await runOf(admin, first)).approvals;
  const refund1 = firstApprovals.find((a) => a.tool_name === "issue_refund")!;
  const notify1 = firstApprovals.find((a) => a.tool_name === "notify_customer")!;
  expect([refund1.status, notify1.status]).toEqual(["pending", "pending"]);

  // 2. The finance reviewer's email (the step's two requests, one digest) and Slack direct message.
  await smtp.waitFor(() => mailsFor(first).some((m) => m.to.includes(REVIEWER)), 15_000);
  await expect.poll(() => dmsFor(first).filter((c) => c.args.channel === DM_OF_REVIEWER).length, { timeout: 15_000 }).toBe(1);
  const mail = mailsFor(first).find((m) => m.to.includes(REVIEWER))!;
  const dm = dmsFor(first).find((c) => c.args.channel === DM_OF_REVIEWER)!;
  const emailMs = mail.at - refund1.requested_at_ms;
  const slackMs = dm.at - refund1.requested_at_ms;
  console.log(`notify e2e: first notification after the request: email ${emailMs} ms, Slack ${slackMs} ms`);
  test.info().annotations.push({ type: "latency", description: `email ${emailMs} ms, Slack ${slackMs} ms` });
  expect(emailMs).toBeLessThan(10_000);
  expect(slackMs).toBeLessThan(10_000);
  expect(mail.mail.subject).toBe("2 requests wait for your decision");
  expect(mail.mail.text).toContain("Amount: €2,500.00");
  expect(mail.mail.text).toContain("Order id: ORD-1001");
  expect(mail.mail.text).toContain("Routed to: finance");
  const link = `${URL}/runs/${encodeURIComponent(first)}#approval-${encodeURIComponent(refund1.id)}`;
  expect(mail.mail.text).toContain(link);
  expect(String(mail.mail.html).match(/href="[^"]+"/g)).toContain(`href="${link}"`);
  expect(JSON.stringify(dm.args.blocks)).toContain("€2,500.00");

  // 4. A second refund right after: its messages wait for the burst window. The server dies (SIGKILL) with
  // them planned and unsent, and comes back on the same database. The first run's other messages (the
  // admin's, for the customer message) are sent first: one still in flight at the kill is sent again only
  // once its claim lapses (60 s), which is not what this step is about.
  const db = new Database(path.join(root, DB_FILE), { readonly: true, fileMustExist: true });
  const rowsOf = (runId: string) =>
    db.prepare("SELECT status, channel FROM Notification WHERE runId = ?").all(runId) as { status: string; channel: string }[];
  let killedAt = 0;
  let second = "";
  try {
    await expect.poll(() => rowsOf(first).filter((r) => r.status !== "sent").length, { timeout: 15_000 }).toBe(0);
    second = await refund("ORD-1002");
    await expect.poll(() => rowsOf(second).length, { timeout: 10_000 }).toBeGreaterThan(0);
    await killServer("SIGKILL");
    killedAt = Date.now();
    // Read after the kill: every message of the second run planned (email and Slack) and none sent.
    expect(rowsOf(second).every((r) => r.status === "pending")).toBe(true);
    expect(new Set(rowsOf(second).map((r) => r.channel))).toEqual(new Set(["email", "slack"]));
  } finally {
    db.close();
  }
  expect([mailsFor(second).length, dmsFor(second).length]).toEqual([0, 0]);
  await startServer();
  const restarted = Date.now();
  await smtp.waitFor(() => mailsFor(second).some((m) => m.to.includes(REVIEWER)), BURST_S * 1000 + 20_000);
  await expect.poll(() => dmsFor(second).some((c) => c.args.channel === DM_OF_REVIEWER), { timeout: 20_000 }).toBe(true);
  console.log(
    `notify e2e: after the SIGKILL and restart (${restarted - killedAt} ms), the held messages arrived ${Math.max(...mailsFor(second).map((m) => m.at)) - restarted} ms after the server was up (the burst window ends ${BURST_S} s after the first run's)`,
  );
  // Several polls later still once each: one email and one Slack message per recipient, as for the first run.
  await new Promise((r) => setTimeout(r, 2000));
  const emailsTo = countBy(mailsFor(second).flatMap((m) => m.to));
  const dmsTo = countBy(dmsFor(second).map((c) => String(c.args.channel)));
  expect(emailsTo[REVIEWER]).toBe(1);
  expect(Object.values(emailsTo).every((n) => n === 1)).toBe(true);
  expect(dmsTo[DM_OF_REVIEWER]).toBe(1);
  expect(Object.values(dmsTo).every((n) => n === 1)).toBe(true);
  expect(Object.keys(emailsTo).sort()).toEqual(Object.keys(countBy(mailsFor(first).flatMap((m) => m.to))).sort());
  expect(Object.keys(dmsTo).sort()).toEqual(Object.keys(countBy(dmsFor(first).map((c) => String(c.args.channel)))).sort());
  // The first run's messages were not sent again by the new process.
  expect(mailsFor(first).filter((m) => m.to.includes(REVIEWER))).toHaveLength(1);
  expect(dmsFor(first).filter((c) => c.args.channel === DM_OF_REVIEWER)).toHaveLength(1);

  // 3. Approve pressed in Slack on both requests of the first run's message: the run resumes by itself and
  // completes, the message is updated in place, the audit names the reviewer.
  const message = wire.message(DM_OF_REVIEWER, findTs(dm.args));
  const updatesOf = () => wire.callsOf("chat.update").filter((c) => c.args.channel === DM_OF_REVIEWER && c.args.ts === message.ts);
  const approveRefund = signed(approveClick("UREVIEWER", message, refund1.id));
  expect((await post(approveRefund)).status).toBe(200);
  await expect.poll(async () => (await runOf(admin, first)).approvals.find((a) => a.id === refund1.id)?.status).toBe("approved");
  // Updated in place twice (the click's answer and the dispatcher's, which update every message sent about
  // it), both saying the same; the notification's buttons stay.
  await expect.poll(() => updatesOf().length).toBe(2);
  const afterOne = wire.message(DM_OF_REVIEWER, message.ts);
  expect(JSON.stringify(afterOne.blocks)).toContain("Approved by Demo reviewer in Slack");
  expect(afterOne.blocks.some((b) => b.type === "actions")).toBe(true);
  expect((await post(signed(approveClick("UREVIEWER", afterOne, notify1.id)))).status).toBe(200);
  await expect.poll(async () => (await runOf(admin, first)).run.state, { timeout: 30_000 }).toBe("completed");
  await expect.poll(() => updatesOf().length).toBe(4);
  const now = wire.message(DM_OF_REVIEWER, message.ts);
  expect(JSON.stringify(now.blocks).match(/Approved by Demo reviewer/g)).toHaveLength(2);
  expect(now.blocks.some((b) => b.type === "actions")).toBe(false);
  expect(now.text).toContain("Approved by Demo reviewer");
  const decisions = (await auditOf(admin, first)).filter((e) => e.action === "approval.approve");
  expect(decisions.map((e) => e.actorEmail)).toEqual([REVIEWER, REVIEWER]);

  // 5. A forged payload (signed with another secret) and replayed ones (an old capture; the accepted Approve
  // sent again): 401, and nothing is decided.
  const secondApprovals = (await runOf(admin, second)).approvals;
  const refund2 = secondApprovals.find((a) => a.tool_name === "issue_refund")!;
  const dm2 = dmsFor(second).find((c) => c.args.channel === DM_OF_REVIEWER)!;
  const message2 = wire.message(DM_OF_REVIEWER, findTs(dm2.args));
  const auditBefore = [(await auditOf(admin, first)).length, (await auditOf(admin, second)).length];
  const forged = await post(signed(approveClick("UREVIEWER", message2, refund2.id), "not-the-apps-signing-secret-0123456789"));
  expect([forged.status, (await forged.json()).error]).toEqual([401, "The signature does not match"]);
  // A correctly signed Approve of the second refund captured six minutes ago and replayed now.
  const stale = await post(signed(approveClick("UREVIEWER", message2, refund2.id), SECRET, Math.floor(Date.now() / 1000) - 360));
  expect([stale.status, (await stale.json()).error]).toEqual([401, "The request's timestamp is more than five minutes away"]);
  const replayed = await post(approveRefund);
  expect([replayed.status, (await replayed.json()).error]).toEqual([401, "This request was already received"]);
  expect((await runOf(admin, second)).approvals.map((a) => a.status)).toEqual(["pending", "pending"]);
  expect([(await auditOf(admin, first)).length, (await auditOf(admin, second)).length]).toEqual(auditBefore);
  expect(contractProblems).toEqual([]);
  await submitter.dispose();
  await admin.dispose();
});

/** The ts the wire server gave a posted message (its answer is not in the call record; the message is). */
function findTs(args: Record<string, unknown>): string {
  for (const m of wire.messages.values())
    if (m.channel === args.channel && JSON.stringify(m.blocks) === JSON.stringify(args.blocks)) return m.ts;
  throw new Error("posted message not found");
}
