// Errors as HTTP answers (lib/http.ts). A transaction that outlives its timeout (a stalled instance, a slow
// database) rolled back: the route answers 503 with Retry-After and the action says so, instead of a 500 —
// and nothing was written. Every typed error is one status and one body, from a route and from an action.
import { describe, expect, it, vi } from "vitest";
import { CorruptRecordError, DecisionConflictError, ForbiddenError, UnauthorizedError, ValidationError } from "@/lib/auth/errors";
import { errorResponse, expectedFailure, failureOf, runAction } from "@/lib/http";
import { AgentCheckpointCorruptionError } from "@/lib/runner";
import { freshDatabase } from "../helpers/databases";

describe("an expired transaction", () => {
  it("is a 503 with Retry-After from a route and from an action; its writes are gone", async () => {
    const t = await freshDatabase("sqlite");
    try {
      const expired = await t.db
        .$transaction(
          async (tx) => {
            await tx.user.create({ data: { email: "slow@example.com", name: "Slow", role: "submitter", passwordHash: "x" } });
            await new Promise((r) => setTimeout(r, 300));
            await tx.user.count();
          },
          { timeout: 50 },
        )
        .catch((e) => e);
      expect((expired as { code?: string }).code).toBe("P2028");
      const res = errorResponse(expired);
      expect(res.status).toBe(503);
      expect(res.headers.get("retry-after")).toBe("1");
      expect(await res.json()).toEqual({ error: expect.stringMatching(/nothing was changed; try again/) });
      expect(await runAction(() => Promise.reject(expired))).toMatchObject({ ok: false, status: 503 });
      expect(await t.db.user.count({ where: { email: "slow@example.com" } })).toBe(0);
    } finally {
      await t.drop();
    }
  });
});

describe("one mapping of errors to HTTP", () => {
  const cases: [string, unknown, number, Record<string, unknown>][] = [
    [
      "a bad field",
      new ValidationError("input.order_id", "Order ids look like ORD-12345"),
      400,
      { error: "Order ids look like ORD-12345", field: "input.order_id" },
    ],
    ["no caller", new UnauthorizedError(), 401, { error: "Sign in required" }],
    ["a role that may not", new ForbiddenError(), 403, { error: "Your role may not do this" }],
    [
      "a stale decision",
      new DecisionConflictError("Arguments changed", { status: "pending" }),
      409,
      { error: "Arguments changed", current: { status: "pending" } },
    ],
    [
      "an unreadable record",
      new CorruptRecordError("Bad record", "runtime:r1"),
      409,
      { error: "AgentCheckpointCorruptionError", message: "Bad record", key: "runtime:r1" },
    ],
    [
      "a corruption error that reached the top",
      new AgentCheckpointCorruptionError("Bad", "message:r1:3"),
      409,
      { error: "AgentCheckpointCorruptionError", message: "Bad (key message:r1:3)", key: "message:r1:3" },
    ],
    ["anything else", new Error("boom at /secret/path"), 500, { error: "Internal error" }],
  ];

  it.each(cases)(
    "%s: a route answers it, an action returns the same status and body, a page reads the same",
    async (_, error, status, body) => {
      const quiet = vi.spyOn(console, "error").mockImplementation(() => {});
      try {
        expect(failureOf(error)).toMatchObject({ status, body });
        const res = errorResponse(error);
        expect(res.status).toBe(status);
        expect(await res.json()).toEqual(body);
        expect(await runAction(() => Promise.reject(error))).toEqual({ ok: false, status, ...body });
        if (status < 500) expect(expectedFailure(error)).toEqual(body);
        else expect(() => expectedFailure(error)).toThrow(error as Error);
      } finally {
        quiet.mockRestore();
      }
    },
  );
});
