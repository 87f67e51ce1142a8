// A local HTTP server that speaks the Slack Web API's wire format (POST /api/<method>, form or JSON body,
// Bearer token, `{ok: true, ...}` or `{ok: false, error}` as Slack answers), holding a workspace's users
// and the messages posted, for the official client to be pointed at (slackApiUrl). It also takes the
// POSTs Slack's response_url receives. Every call is recorded as it arrived.
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export type WireUser = { id: string; email: string; name: string; is_email_confirmed?: boolean; deleted?: boolean; is_bot?: boolean };
export type WireCall = { method: string; args: Record<string, unknown>; auth: string | null; at: number };
export type WireMessage = { channel: string; ts: string; text?: string; blocks: Record<string, unknown>[]; metadata?: unknown };

/** A form field that carries an object or array arrives JSON-encoded (as the official client sends it). */
function decodeForm(body: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of new URLSearchParams(body)) {
    try {
      out[k] = /^[[{]/.test(v) ? JSON.parse(v) : v;
    } catch {
      out[k] = v;
    }
  }
  return out;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

export class SlackWire {
  readonly calls: WireCall[] = [];
  readonly responses: { path: string; body: Record<string, unknown> }[] = [];
  readonly messages = new Map<string, WireMessage>();
  private server: Server | null = null;
  private seq = 0;
  url = "";

  constructor(
    readonly token: string,
    readonly users: WireUser[],
  ) {}

  /** The Web API's base URL (what slackApiUrl takes). */
  get apiUrl() {
    return `${this.url}/api/`;
  }

  /** A response_url for one interaction. */
  responseUrl(id: string) {
    return `${this.url}/response/${id}`;
  }

  callsOf(method: string) {
    return this.calls.filter((c) => c.method === method);
  }

  message(channel: string, ts: string): WireMessage {
    const m = this.messages.get(`${channel}/${ts}`);
    if (!m) throw new Error(`No message ${channel}/${ts}`);
    return m;
  }

  /** Listens on 127.0.0.1 (port 0: any free one; an e2e gives the port its console's AFK_SLACK_API_URL names). */
  async start(port = 0): Promise<void> {
    this.server = createServer(async (req, res) => {
      const body = await readBody(req);
      const send = (status: number, json: unknown) => {
        res.writeHead(status, { "content-type": "application/json; charset=utf-8" });
        res.end(JSON.stringify(json));
      };
      const path = req.url ?? "";
      if (path.startsWith("/response/")) {
        this.responses.push({ path, body: JSON.parse(body) });
        return send(200, { ok: true });
      }
      const m = /^\/api\/([a-zA-Z.]+)$/.exec(path);
      if (req.method !== "POST" || !m) return send(404, { ok: false, error: "unknown_method" });
      const type = req.headers["content-type"] ?? "";
      const args = type.startsWith("application/json") ? JSON.parse(body) : decodeForm(body);
      const auth = req.headers.authorization ?? null;
      this.calls.push({ method: m[1], args, auth, at: Date.now() });
      if (auth !== `Bearer ${this.token}`) return send(200, { ok: false, error: "invalid_auth" });
      send(200, this.answer(m[1], args));
    });
    await new Promise<void>((resolve) => this.server!.listen(port, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    await new Promise((resolve) => this.server?.close(resolve));
  }

  private answer(method: string, a: Record<string, unknown>): Record<string, unknown> {
    const user = (u: WireUser) => ({
      id: u.id,
      name: u.name,
      deleted: u.deleted ?? false,
      is_bot: u.is_bot ?? false,
      is_email_confirmed: u.is_email_confirmed ?? true,
      profile: { email: u.email, real_name: u.name },
    });
    switch (method) {
      case "users.lookupByEmail": {
        const u = this.users.find((x) => x.email === a.email && !x.deleted);
        return u ? { ok: true, user: user(u) } : { ok: false, error: "users_not_found" };
      }
      case "users.info": {
        const u = this.users.find((x) => x.id === a.user);
        return u ? { ok: true, user: user(u) } : { ok: false, error: "user_not_found" };
      }
      case "conversations.open":
        return { ok: true, channel: { id: `D${String(a.users).slice(1)}` } };
      case "chat.postMessage": {
        const ts = `1700000000.${String(++this.seq).padStart(6, "0")}`;
        const channel = String(a.channel);
        const msg: WireMessage = {
          channel,
          ts,
          text: a.text as string,
          blocks: (a.blocks as WireMessage["blocks"]) ?? [],
          metadata: a.metadata,
        };
        this.messages.set(`${channel}/${ts}`, msg);
        return { ok: true, channel, ts, message: { ts, text: msg.text, blocks: msg.blocks } };
      }
      case "chat.update": {
        const key = `${a.channel}/${a.ts}`;
        const msg = this.messages.get(key);
        if (!msg) return { ok: false, error: "message_not_found" };
        this.messages.set(key, { ...msg, text: a.text as string, blocks: (a.blocks as WireMessage["blocks"]) ?? [] });
        return { ok: true, channel: a.channel, ts: a.ts };
      }
      case "chat.postEphemeral":
        return { ok: true, message_ts: `1700000000.${String(++this.seq).padStart(6, "0")}` };
      case "views.open":
        return { ok: true, view: { id: `V${++this.seq}`, ...(a.view as object) } };
      default:
        return { ok: false, error: "unknown_method" };
    }
  }
}
