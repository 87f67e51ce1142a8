// The hand-off doors of the REST API as clients call them (bearer tokens acting as users, the real route
// handlers, SQLite): POST /api/approvals/{id}/reassign and GET/POST /api/approvals/{id}/comments answer
// 401 without a caller, 403 for a role or a reviewer who may not, 400 naming the field, 404, 409 with the
// request's state once decided.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ScratchDb, scratchDatabase } from "../helpers/scratch";

type Handler = (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>;

let s: ScratchDb;
let routes: { reassign: { POST: Handler }; comments: { GET: Handler; POST: Handler } };
const tokens: Record<string, string> = {};
let approvalId = "";
let argsHash = "";

async function call(handler: Handler, method: string, who: string | null, body?: unknown, id = approvalId) {
  const req = new Request("http://localhost/x", {
    method,
    body: body === undefined ? undefined : JSON.stringify(body),
    headers: { ...(who ? { authorization: `Bearer ${tokens[who]}` } : {}), "content-type": "application/json" },
  });
  const res = await handler(req, { params: Promise.resolve({ approvalId: id }) });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

beforeAll(async () => {
  s = await scratchDatabase("sqlite");
  process.env.DATABASE_URL = s.url;
  (await import("@/lib/env")).resetEnv();
  routes = {
    reassign: (await import("@/app/api/approvals/[approvalId]/reassign/route")) as unknown as { POST: Handler },
    comments: (await import("@/app/api/approvals/[approvalId]/comments/route")) as unknown as { GET: Handler; POST: Handler },
  };
  const { db } = await import("@/lib/db/client");
  const { createToken } = await import("@/lib/services/tokens");
  const { appContext } = await import("@/lib/context");
  const { startRun } = await import("@/lib/services/start");
  const { getRunView } = await import("@/lib/services/run-view");
  const admin = { id: "a", email: "admin@example.com", name: "A", role: "admin" as const };
  const people = [
    { handle: "fin", role: "reviewer", groups: ["finance"] },
    { handle: "ops", role: "reviewer", groups: ["ops"] },
    { handle: "sub", role: "submitter", groups: [] },
    { handle: "op", role: "operator", groups: [] },
  ] as const;
  for (const p of people) {
    const u = await db().user.create({
      data: {
        id: `u-${p.handle}`,
        email: `${p.handle}@example.com`,
        name: p.handle,
        role: p.role,
        groups: JSON.stringify(p.groups),
        passwordHash: "x",
      },
    });
    tokens[p.handle] = (await createToken({ db: db() }, admin, { body: { name: p.handle, role: p.role, userId: u.id } })).token;
  }
  const sub = { id: "u-sub", email: "sub@example.com", name: "sub", role: "submitter" as const };
  const { id } = await startRun(appContext(), sub, {
    body: { agent: "refund-desk", input: { order_id: "ORD-7201", amount_cents: 250_000, reason: "Lost" } },
  });
  await appContext().worker.idle();
  const refund = (await getRunView(appContext(), admin, { runId: id })).approvals.find((a) => a.tool_name === "issue_refund")!;
  approvalId = refund.id;
  argsHash = refund.argsHash;
});
afterAll(async () => {
  const { appContext } = await import("@/lib/context");
  await appContext().worker.idle();
  await s?.drop();
});

describe("hand-off routes", () => {
  it("POST /api/approvals/{id}/reassign: 401, 403, 400 with the field, 404, 200, then 409 with the state", async () => {
    expect((await call(routes.reassign.POST, "POST", null, { email: "ops@example.com" })).status).toBe(401);
    expect((await call(routes.reassign.POST, "POST", "sub", { email: "ops@example.com" })).status).toBe(403);
    expect((await call(routes.reassign.POST, "POST", "op", { email: "ops@example.com" })).status).toBe(403);
    expect((await call(routes.reassign.POST, "POST", "ops", { email: "ops@example.com" })).status).toBe(403);
    expect(await call(routes.reassign.POST, "POST", "fin", {})).toMatchObject({ status: 400, json: { field: "email" } });
    expect((await call(routes.reassign.POST, "POST", "fin", { email: "ops@example.com" }, "nope:1:x")).status).toBe(404);
    const ok = await call(routes.reassign.POST, "POST", "fin", { email: "ops@example.com" });
    expect(ok).toMatchObject({ status: 200, json: { assignment: { to: "ops@example.com", toKind: "person", by: "fin@example.com" } } });
    const { appContext } = await import("@/lib/context");
    const { decide } = await import("@/lib/services/decide");
    const ops = { id: "u-ops", email: "ops@example.com", name: "ops", role: "reviewer" as const, groups: ["ops"] };
    await decide(appContext(), ops, { approvalId, body: { decision: "reject", reason: "No", argsHash } });
    const late = await call(routes.reassign.POST, "POST", "ops", { group: "finance" });
    expect(late).toMatchObject({
      status: 409,
      json: { error: "This request is already rejected", current: { id: approvalId, status: "rejected" } },
    });
  });

  it("GET and POST /api/approvals/{id}/comments: 401, 403, 400 with the field, 404, 201, the thread", async () => {
    expect((await call(routes.comments.GET, "GET", null)).status).toBe(401);
    expect((await call(routes.comments.POST, "POST", null, { text: "hi" })).status).toBe(401);
    expect((await call(routes.comments.POST, "POST", "sub", { text: "hi" })).status).toBe(403);
    expect((await call(routes.comments.POST, "POST", "op", { text: "hi" })).status).toBe(403);
    expect(await call(routes.comments.POST, "POST", "fin", { text: "  " })).toMatchObject({ status: 400, json: { field: "text" } });
    expect(await call(routes.comments.POST, "POST", "fin", { text: "x".repeat(2001) })).toMatchObject({
      status: 400,
      json: { field: "text" },
    });
    expect((await call(routes.comments.POST, "POST", "fin", { text: "hi" }, "nope:1:x")).status).toBe(404);
    const posted = await call(routes.comments.POST, "POST", "fin", { text: "<b>Checked</b> the order" });
    expect(posted).toMatchObject({ status: 201, json: { comment: { seq: 1, by: "fin@example.com", text: "<b>Checked</b> the order" } } });
    const thread = await call(routes.comments.GET, "GET", "sub");
    expect(thread.status).toBe(200);
    expect((thread.json.comments as { text: string }[]).map((c) => c.text)).toEqual(["<b>Checked</b> the order"]);
  });
});
