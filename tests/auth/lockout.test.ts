// Sign-in lockout as the form says it: each wrong password counts down the attempts left, the one that
// reaches the limit says the account is locked and for how long, and an unknown email gets exactly the same
// answers (its failures are counted alike), so the count reveals nothing about which emails exist.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase, providers, type TestDb } from "../helpers/databases";
import { LOCKOUT, LockedOutError, assertNotLockedOut, clearAccountFailures, failedSignIn, recordFailure } from "@/lib/auth/lockout";

async function wrongAttempts(t: TestDb, email: string, address: string, n: number): Promise<string[]> {
  const said: string[] = [];
  for (let i = 0; i < n; i++) {
    // As authorize does: a locked account is refused before anything is checked or recorded.
    const refused = await assertNotLockedOut(t.db, email, address).catch((e: Error) => e);
    if (refused) {
      said.push(`refused: ${refused.message}`);
      continue;
    }
    await recordFailure(t.db, email, address);
    said.push((await failedSignIn(t.db, email, address)).message);
  }
  return said;
}

describe.each(providers)("sign-in lockout messages on %s", (provider) => {
  let t: TestDb;
  beforeAll(async () => {
    t = await freshDatabase(provider);
    await t.db.user.create({ data: { email: "known@example.com", name: "K", role: "reviewer", passwordHash: "x" } });
  });
  afterAll(() => t?.drop());

  it("counts down the attempts left, then says the account is locked for 15 minutes", async () => {
    expect(LOCKOUT.perAccount).toBe(5);
    expect(await wrongAttempts(t, "known@example.com", "10.0.0.1", 5)).toEqual([
      "Wrong email or password. 4 attempts left before the account locks for 15 minutes.",
      "Wrong email or password. 3 attempts left before the account locks for 15 minutes.",
      "Wrong email or password. 2 attempts left before the account locks for 15 minutes.",
      "Wrong email or password. 1 attempt left before the account locks for 15 minutes.",
      "Wrong email or password. Too many failed sign-ins, so the account is locked. Try again in 15 minutes.",
    ]);
    const locked = await assertNotLockedOut(t.db, "known@example.com", "10.0.0.1").catch((e) => e);
    expect(locked).toBeInstanceOf(LockedOutError);
    expect(locked.message).toBe("Too many failed sign-ins. Try again in 15 minutes.");
  });

  it("answers an unknown email exactly as a known one", async () => {
    await clearAccountFailures(t.db, "known@example.com");
    const known = await wrongAttempts(t, "known@example.com", "10.0.0.2", 6);
    const unknown = await wrongAttempts(t, "nobody@example.com", "10.0.0.3", 6);
    expect(unknown).toEqual(known);
    expect(unknown.at(-1)).toMatch(/^refused: Too many failed sign-ins/);
  });

  it("says 1 minute, not minute(s), when the lock is about to end", () => {
    expect(new LockedOutError(30).message).toBe("Too many failed sign-ins. Try again in 1 minute.");
    expect(new LockedOutError(61).message).toBe("Too many failed sign-ins. Try again in 2 minutes.");
  });

  it("names the address when its own limit is nearer than the account's", async () => {
    const address = "10.0.0.9";
    for (let i = 0; i < LOCKOUT.perAddress - 2; i++) await recordFailure(t.db, `spray-${i}@example.com`, address);
    await recordFailure(t.db, "fresh@example.com", address);
    expect((await failedSignIn(t.db, "fresh@example.com", address)).message).toBe(
      "Wrong email or password. 1 attempt left before sign-ins from this address lock for 15 minutes.",
    );
  });
});
