// Sign-in lockout: after too many failures in a window, an account (or a client address) is refused even
// with the right password until the window has passed. Stored in the database so every app instance agrees.
import type { Db } from "../db/client.ts";
import { clearLoginFailures, recentLoginFailures, recordLoginFailures } from "../db/accounts.ts";
import { plural } from "../format.ts";

export const LOCKOUT = { windowMs: 15 * 60 * 1000, perAccount: 5, perAddress: 30 } as const;

const LOCK_FOR = plural(LOCKOUT.windowMs / 60_000, "minute");

export class LockedOutError extends Error {
  constructor(
    readonly retryAfterS: number,
    lead = "Too many failed sign-ins.",
  ) {
    super(`${lead} Try again in ${plural(Math.max(1, Math.ceil(retryAfterS / 60)), "minute")}.`);
  }
}

/**
 * A wrong password (or an unknown email: both are recorded alike, so the count says nothing about which
 * emails exist) and how many attempts are left before the lock.
 */
export class WrongCredentialsError extends Error {
  constructor(
    readonly attemptsLeft: number,
    scope: "account" | "address",
  ) {
    super(
      `Wrong email or password. ${plural(attemptsLeft, "attempt")} left before ${scope === "account" ? "the account locks" : "sign-ins from this address lock"} for ${LOCK_FOR}.`,
    );
  }
}

const keysFor = (email: string, address: string) => ({ account: `account:${email}`, address: `ip:${address}` });

// Throws LockedOutError when either key has reached its limit inside the window.
export async function assertNotLockedOut(db: Db, email: string, address: string, now = Date.now()) {
  const k = keysFor(email, address);
  const since = new Date(now - LOCKOUT.windowMs);
  for (const [key, limit] of [
    [k.account, LOCKOUT.perAccount],
    [k.address, LOCKOUT.perAddress],
  ] as const) {
    const recent = await recentLoginFailures(db, key, since, limit);
    if (recent.length >= limit) throw new LockedOutError((recent[limit - 1].at.getTime() + LOCKOUT.windowMs - now) / 1000);
  }
}

export async function recordFailure(db: Db, email: string, address: string) {
  const k = keysFor(email, address);
  // Keep the table small: failures older than a day say nothing any more.
  await recordLoginFailures(db, [k.account, k.address], new Date(Date.now() - 24 * 60 * 60 * 1000));
}

/**
 * The error to answer a failed sign-in with, after recordFailure: how many attempts are left on the key
 * nearest its limit, or, when this failure reached it, the lock. Unknown emails are counted exactly like
 * known ones, so the answer is the same for both.
 */
export async function failedSignIn(db: Db, email: string, address: string, now = Date.now()): Promise<Error> {
  const k = keysFor(email, address);
  const since = new Date(now - LOCKOUT.windowMs);
  const [account, byAddress] = await Promise.all([
    recentLoginFailures(db, k.account, since, LOCKOUT.perAccount),
    recentLoginFailures(db, k.address, since, LOCKOUT.perAddress),
  ]);
  const left = { account: LOCKOUT.perAccount - account.length, address: LOCKOUT.perAddress - byAddress.length };
  const scope = left.address < left.account ? "address" : "account";
  if (left[scope] > 0) return new WrongCredentialsError(left[scope], scope);
  const oldest = (scope === "account" ? account : byAddress).at(-1)?.at.getTime() ?? now;
  const locked = scope === "account" ? "the account is locked" : "sign-ins from this address are locked";
  return new LockedOutError((oldest + LOCKOUT.windowMs - now) / 1000, `Wrong email or password. Too many failed sign-ins, so ${locked}.`);
}

export async function clearAccountFailures(db: Db, email: string) {
  await clearLoginFailures(db, keysFor(email, "").account);
}

// The client address as the first proxy saw it; without a proxy header all clients share one bucket.
export function clientAddress(headers: Record<string, string | string[] | undefined> | undefined): string {
  const xff = headers?.["x-forwarded-for"];
  const first = (Array.isArray(xff) ? xff[0] : xff)?.split(",")[0]?.trim();
  return first || "direct";
}
