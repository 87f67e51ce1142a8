// The store's driver path (lib/db/driver.ts) answers exactly what the Prisma path answers, on a real
// SQLite file and a real PostgreSQL: prefixes with LIKE's pattern characters, byte order, integers as
// numbers (Prisma's SQLite adapter hands out BigInt), fencing by epoch.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase, providers, type TestDb } from "../helpers/databases";
import { driverOf } from "@/lib/db/client";
import { PrismaStore } from "@/lib/db/store";
import { LeaseLostError } from "@/lib/runner";

describe.each(providers)("store driver on %s", (provider) => {
  let t: TestDb;
  beforeAll(async () => {
    t = await freshDatabase(provider);
  });
  afterAll(() => t?.drop());

  it("has a driver for the top-level client only", async () => {
    expect(driverOf(t.db)?.provider).toBe(provider);
    await t.db.$transaction(async (tx) => expect(driverOf(tx as never)).toBeNull());
  });

  it("lists, reads and writes as the Prisma path does", async () => {
    const fast = new PrismaStore(t.db);
    const slow = new PrismaStore(new Proxy(t.db, {})); // no driver: every statement through Prisma
    const keys = ["a_b:1", "a_b:2", "axb:1", "a%b:1", "a\\b:1", "a_b:10", "a_b;", "a_b:é", "A_B:1", "a_b:\u{1F600}"];
    await fast.putStates(
      "th",
      keys.map((key, i) => ({ key, value: { i, key } })),
    );
    for (const prefix of ["a_b:", "a%b:", "a\\b:", "a", "A", "a_b:1", "zz", ""])
      expect(await fast.listState("th", prefix), prefix).toEqual(await slow.listState("th", prefix));
    expect((await fast.listState("th", "a_b:")).map((e) => e.key)).toEqual(["a_b:1", "a_b:10", "a_b:2", "a_b:é", "a_b:\u{1F600}"]);
    for (const k of [...keys, "missing"]) expect(await fast.getState("th", k)).toEqual(await slow.getState("th", k));
  });

  it("fences by epoch with plain numbers", async () => {
    await t.db.run.create({ data: { id: "fenced", threadId: "fenced", agentName: "x", input: "{}", state: "running", leaseEpoch: 3 } });
    const held = new PrismaStore(t.db).fenced({ runId: "fenced", epoch: 3 });
    await held.assertFence();
    await held.putStates("fenced", [{ key: "checkpoint:fenced:latest", value: { ok: 1 } }]);
    const stale = new PrismaStore(t.db).fenced({ runId: "fenced", epoch: 2 });
    await expect(stale.assertFence()).rejects.toBeInstanceOf(LeaseLostError);
    await expect(stale.putStates("fenced", [{ key: "checkpoint:fenced:latest", value: { ok: 2 } }])).rejects.toBeInstanceOf(LeaseLostError);
    expect(await held.getState("fenced", "checkpoint:fenced:latest")).toEqual({ ok: 1 });
  });
});

describe("the SQLite connection", () => {
  it("keeps a 64 MB page cache and WAL on the connection the driver and Prisma share", async () => {
    const t = await freshDatabase("sqlite");
    try {
      const { Prisma } = await import("@/lib/generated/sqlite/client");
      expect(await driverOf(t.db)!.all(Prisma.sql`PRAGMA cache_size`)).toEqual([{ cache_size: -65536 }]);
      expect(await driverOf(t.db)!.all(Prisma.sql`PRAGMA journal_mode`)).toEqual([{ journal_mode: "wal" }]);
    } finally {
      await t.drop();
    }
  });
});
