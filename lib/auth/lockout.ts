// Sign-in lockout: after too many failures in a window, an account (or a client address) is refused even
// with the right password until the window has passed. Stored in the database so every app instance agrees.
import type { Db } from "../db/client.ts";
import { clearLoginFailures, recentLoginFailures, recordLoginFailures } from "../db/accounts.ts";

export const LOCKOUT = { windowMs: 15 * 60 * 1000, perAccount: 5, perAddress: 30 } as const;

export class LockedOutError extends Error {
  constructor(readonly retryAfterS: number) {
    super(`Too many failed sign-ins. Try again in ${Math.max(1, Math.ceil(retryAfterS / 60))} minute(s).`);
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

export async function clearAccountFailures(db: Db, email: string) {
  await clearLoginFailures(db, keysFor(email, "").account);
}

// The client address as the first proxy saw it; without a proxy header all clients share one bucket.
export function clientAddress(headers: Record<string, string | string[] | undefined> | undefined): string {
  const xff = headers?.["x-forwarded-for"];
  const first = (Array.isArray(xff) ? xff[0] : xff)?.split(",")[0]?.trim();
  return first || "direct";
}
