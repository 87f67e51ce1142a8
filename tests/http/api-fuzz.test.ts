// Fuzzed requests against the real route handlers (bearer-token auth, a real SQLite database): invalid
// JSON, wrong types, missing and extra fields, oversized strings, unicode edge cases, bad query strings.
// Every one is a 400 naming the field (413 when too large), never a 500, and nothing is written.
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scratchDatabase, type ScratchDb } from "../helpers/scratch";

let s: ScratchDb;
let token: string;
let routes: Awaited<ReturnType<typeof loadRoutes>>;
let runId: string;
let userId: string;

async function loadRoutes() {
  return {
    runs: await import("@/app/api/runs/route"),
    fork: await import("@/app/api/runs/[runId]/fork/route"),
    checkpoints: await import("@/app/api/runs/[runId]/checkpoints/route"),
    diff: await import("@/app/api/runs/[runId]/diff/route"),
    decision: await import("@/app/api/approvals/[approvalId]/decision/route"),
    approvals: await import("@/app/api/approvals/route"),
    users: await import("@/app/api/admin/users/route"),
    user: await import("@/app/api/admin/users/[userId]/route"),
    tokens: await import("@/app/api/admin/tokens/route"),
    audit: await import("@/app/api/audit/route"),
  };
}

const stats = { sent: 0, byStatus: {} as Record<number, number> };

async function fingerprint() {
  const d = s.db;
  return JSON.stringify([
    await d.run.count(),
    await d.user.count(),
    await d.apiToken.count(),
    await d.auditEvent.count(),
    await d.stateEntry.count(),
    await d.refund.count(),
    await d.approval.count(),
    (await d.approval.findMany({ select: { record: true }, orderBy: { id: "asc" } })).map((r) => r.record),
  ]);
}

type Handler = (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>;

async function send(handler: unknown, method: string, url: string, body: string | undefined, params: Record<string, string> = {}) {
  const req = new Request(`http://localhost${url}`, {
    method,
    body,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
  });
  const res = await (handler as Handler)(req, { params: Promise.resolve(params) });
  stats.sent++;
  stats.byStatus[res.status] = (stats.byStatus[res.status] ?? 0) + 1;
  return { status: res.status, json: (await res.json()) as { error?: string; field?: string } };
}

async function expectRejected(
  handler: unknown,
  method: string,
  url: string,
  body: string | undefined,
  params: Record<string, string> = {},
) {
  const before = await fingerprint();
  const r = await send(handler, method, url, body, params);
  expect([400, 413], `${method} ${url} ${body?.slice(0, 120)} → ${r.status} ${JSON.stringify(r.json).slice(0, 200)}`).toContain(r.status);
  if (r.status === 400)
    expect(typeof r.json.field === "string" && r.json.field.length > 0, `field named for ${body?.slice(0, 120)}`).toBe(true);
  expect(JSON.stringify(r.json)).not.toMatch(/at .*\.ts:\d+|node_modules|stack/i);
  expect(await fingerprint(), "nothing written").toBe(before);
}

// Strings that break naive code: lone surrogates, NUL, bidi overrides, zero-width, combining marks, emoji.
const nasty = fc.constantFrom(
  "\uD800",
  "\uDFFF",
  "a\u0000b",
  "\u202Eevil",
  "\u200B",
  "e\u0301\u0301\u0301",
  "🧨💥",
  "\uFEFF",
  "%00",
  "../../etc/passwd",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a template-injection probe, sent as text
  "${7*7}",
  "' OR 1=1 --",
  "𝕏".repeat(300),
);
const wrongType = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string(), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 }), { maxKeys: 3 }),
);

const typeOf = (v: unknown) => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v);

// A valid body made invalid in exactly one way.
function broken(valid: Record<string, unknown>, nested?: string, optional: string[] = []): fc.Arbitrary<string> {
  const target = (v: Record<string, unknown>) => (nested ? (v[nested] as Record<string, unknown>) : v);
  const keys = Object.keys(target(valid));
  const required = keys.filter((k) => !optional.includes(k));
  const clone = () => JSON.parse(JSON.stringify(valid)) as Record<string, unknown>;
  return fc.oneof(
    fc.string({ maxLength: 40 }).filter((t) => {
      try {
        JSON.parse(t);
        return false;
      } catch {
        return true;
      }
    }),
    fc.constantFrom("", "{", "[1,2", '{"a":}', "null", "[]", '"text"', "42", '{"agent": "x"', "\u0000"),
    ...(required.length
      ? [
          fc.constantFrom(...required).map((k) => {
            const v = clone();
            delete target(v)[k];
            return JSON.stringify(v);
          }),
        ]
      : []),
    fc
      .tuple(fc.constantFrom(...keys), wrongType)
      .filter(([k, w]) => typeOf(w) !== typeOf(target(valid)[k]))
      .map(([k, w]) => {
        const v = clone();
        target(v)[k] = w;
        return JSON.stringify(v);
      }),
    fc
      .tuple(
        fc.string({ minLength: 1, maxLength: 12 }).filter((k) => !keys.includes(k) && k !== "__proto__"),
        fc.jsonValue(),
      )
      .map(([k, x]) => {
        const v = clone();
        target(v)[k] = x;
        return JSON.stringify(v);
      }),
    fc.constantFrom(...keys).map((k) => {
      const v = clone();
      target(v)[k] = "x".repeat(5_000);
      return JSON.stringify(v);
    }),
    fc.constant(JSON.stringify({ ...valid, pad: "y".repeat(1_100_000) })),
  );
}

beforeAll(async () => {
  s = await scratchDatabase("sqlite");
  process.env.DATABASE_URL = s.url;
  (await import("@/lib/env")).resetEnv();
  routes = await loadRoutes();
  const { db } = await import("@/lib/db/client");
  const { createToken } = await import("@/lib/services/tokens");
  const { appContext } = await import("@/lib/context");
  const { startRun } = await import("@/lib/services/start");
  const admin = { id: "fuzz-admin", email: "fuzz@example.com", name: "F", role: "admin" as const };
  token = (await createToken({ db: db() }, admin, { body: { name: "fuzz", role: "admin" } })).token;
  runId = (
    await startRun(
      appContext(),
      { ...admin, id: "someone-else", email: "else@example.com" },
      { body: { agent: "refund-desk", input: { order_id: "ORD-1234", amount_cents: 9000, reason: "Arrived broken" } } },
    )
  ).id;
  await appContext().worker.idle();
  userId = (await db().user.create({ data: { email: "target@example.com", name: "T", role: "submitter", passwordHash: "x" } })).id;
});
afterAll(async () => {
  const { appContext } = await import("@/lib/context");
  await appContext().worker.idle();
  await s?.drop();
});

const N = 80;

describe("fuzzed requests", () => {
  it("POST /api/runs (the run form's body too)", async () => {
    const valid = { agent: "refund-desk", input: { order_id: "ORD-1234", amount_cents: 100, reason: "Damaged" } };
    await fc.assert(
      fc.asyncProperty(broken(valid), (b) => expectRejected(routes.runs.POST, "POST", "/api/runs", b)),
      { numRuns: N },
    );
    await fc.assert(
      fc.asyncProperty(broken(valid, "input"), (b) => expectRejected(routes.runs.POST, "POST", "/api/runs", b)),
      { numRuns: N },
    );
    // A unicode edge case in a field with a pattern is a 400 on that field.
    await fc.assert(
      fc.asyncProperty(nasty, async (x) => {
        const before = await fingerprint();
        const r = await send(
          routes.runs.POST,
          "POST",
          "/api/runs",
          JSON.stringify({ agent: "refund-desk", input: { ...valid.input, order_id: x } }),
        );
        expect(r).toMatchObject({ status: 400, json: { field: "input.order_id" } });
        expect(await fingerprint()).toBe(before);
      }),
      { numRuns: 20 },
    );
  });

  it("unicode in free text is accepted and stored exactly", async () => {
    const { db } = await import("@/lib/db/client");
    for (const reason of ["Ünïcødé ✓ — 🧨 e\u0301", "\u202Eright-to-left", "zero\u200Bwidth"]) {
      const r = await send(
        routes.runs.POST,
        "POST",
        "/api/runs",
        JSON.stringify({ agent: "support-writer", input: { customer: "A", question: reason } }),
      );
      expect(r.status).toBe(201);
      const row = await db().run.findUniqueOrThrow({ where: { id: (r.json as { id: string }).id } });
      expect(JSON.parse(row.input).question).toBe(reason);
    }
    const { appContext } = await import("@/lib/context");
    await appContext().worker.idle();
  });

  it("POST /api/approvals/{id}/decision", async () => {
    const approvalId = `${runId}:2:call_refund`;
    const valid = { decision: "approve", args: { order_id: "ORD-1234", amount_cents: 100, reason: "ok" } };
    await fc.assert(
      fc.asyncProperty(broken(valid, undefined, ["args"]), (b) => expectRejected(routes.decision.POST, "POST", "/x", b, { approvalId })),
      { numRuns: N },
    );
    await fc.assert(
      fc.asyncProperty(broken(valid, "args"), (b) => expectRejected(routes.decision.POST, "POST", "/x", b, { approvalId })),
      { numRuns: N },
    );
    await expectRejected(routes.decision.POST, "POST", "/x", JSON.stringify({ decision: "reject" }), { approvalId });
    await expectRejected(routes.decision.POST, "POST", "/x", JSON.stringify({ decision: "reject", reason: "   " }), { approvalId });
  });

  it("POST /api/runs/{id}/fork, /api/admin/users, /api/admin/tokens, PATCH /api/admin/users/{id}", async () => {
    await fc.assert(
      fc.asyncProperty(broken({ seq: 0 }), (b) => expectRejected(routes.fork.POST, "POST", "/x", b, { runId })),
      { numRuns: N },
    );
    await fc.assert(
      fc.asyncProperty(broken({ email: "new@example.com", name: "New", role: "reviewer", password: "long-enough-pw" }), (b) =>
        expectRejected(routes.users.POST, "POST", "/x", b),
      ),
      { numRuns: N },
    );
    await fc.assert(
      fc.asyncProperty(broken({ name: "t", role: "reviewer" }), (b) => expectRejected(routes.tokens.POST, "POST", "/x", b)),
      { numRuns: N },
    );
    await fc.assert(
      fc.asyncProperty(broken({ role: "operator" }), (b) => expectRejected(routes.user.PATCH, "PATCH", "/x", b, { userId })),
      { numRuns: N },
    );
  });

  it("query strings of lists, timeline and diff", async () => {
    const bad = fc.oneof(
      fc.string({ minLength: 1, maxLength: 20 }).filter((v) => !/^\d+$/.test(v)),
      nasty,
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom("state", "from", "to", "take", "bogus"), bad, async (k, v) => {
        const r = await send(routes.runs.GET, "GET", `/api/runs?${new URLSearchParams({ [k]: v })}`, undefined);
        expect(r.status, `${k}=${v}`).toBe(400);
        expect(r.json.field).toBe(k);
      }),
      { numRuns: N },
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom("take", "bogus"), bad, async (k, v) => {
        const r = await send(routes.checkpoints.GET, "GET", `/x?${new URLSearchParams({ [k]: v })}`, undefined, { runId });
        expect(r.status).toBe(400);
        expect(r.json.field).toBe(k);
      }),
      { numRuns: 30 },
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom("a", "b"), bad, async (k, v) => {
        const r = await send(routes.diff.GET, "GET", `/x?${new URLSearchParams({ a: "0", b: "1", [k]: v })}`, undefined, { runId });
        expect(r.status).toBe(400);
        expect(r.json.field).toBe(k);
      }),
      { numRuns: 30 },
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom("from", "take", "bogus"), bad, async (k, v) => {
        const r = await send(routes.audit.GET, "GET", `/x?${new URLSearchParams({ [k]: v })}`, undefined);
        expect(r.status).toBe(400);
        expect(r.json.field).toBe(k);
      }),
      { numRuns: 30 },
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom("bogus"), bad, async (k, v) => {
        const r = await send(routes.approvals.GET, "GET", `/x?${new URLSearchParams({ [k]: v })}`, undefined);
        expect(r.status).toBe(400);
      }),
      { numRuns: 10 },
    );
  });

  it("reports what it sent", () => {
    console.log(`fuzzed requests: ${stats.sent} sent; statuses ${JSON.stringify(stats.byStatus)}`);
    expect(stats.byStatus[500] ?? 0).toBe(0);
    expect(stats.sent).toBeGreaterThan(700);
  });
});
