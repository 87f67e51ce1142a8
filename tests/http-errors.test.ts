// A transaction that outlives its timeout (a stalled instance, a slow database) rolled back: the route
// answers 503 with Retry-After and the action says so, instead of a 500 — and nothing was written.
import { describe, expect, it } from "vitest";
import { errorResponse, runAction } from "@/lib/http";
import { freshDatabase } from "./helpers/databases";

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
