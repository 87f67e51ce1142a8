// Slack's request signing (v0): HMAC-SHA256 with the app's signing secret over "v0:{timestamp}:{raw body}",
// sent as X-Slack-Signature "v0=<hex>" with X-Slack-Request-Timestamp. A request older or newer than five
// minutes is refused, and so is a signature seen before within that window (a replay).
import { createHmac, timingSafeEqual } from "node:crypto";

export const REPLAY_WINDOW_S = 5 * 60;

/** The signature Slack sends for this body at this timestamp (seconds). */
export function slackSignature(secret: string, timestamp: string | number, body: string): string {
  return `v0=${createHmac("sha256", secret).update(`v0:${timestamp}:${body}`).digest("hex")}`;
}

export type Verdict = { ok: true } | { ok: false; why: string };

/**
 * Checks one request's signature. `seen` remembers the signatures accepted in the window: Slack never sends
 * the same signed request twice (a retry is signed anew with its own timestamp), so a repeat is a replay.
 * (It is this process's memory: on several instances a replay that reaches another one is still answered
 * by the decide service, where the same person cannot decide a request twice.)
 */
export function verifySlackRequest(
  secret: string,
  headers: { timestamp: string | null; signature: string | null },
  body: string,
  seen: ReplayGuard,
  nowMs = Date.now(),
): Verdict {
  const { timestamp, signature } = headers;
  if (!timestamp || !signature) return { ok: false, why: "X-Slack-Request-Timestamp and X-Slack-Signature are required" };
  if (!/^\d{1,12}$/.test(timestamp)) return { ok: false, why: "X-Slack-Request-Timestamp is not a Unix time" };
  if (Math.abs(nowMs / 1000 - Number(timestamp)) > REPLAY_WINDOW_S)
    return { ok: false, why: "The request's timestamp is more than five minutes away" };
  const expected = Buffer.from(slackSignature(secret, timestamp, body));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, why: "The signature does not match" };
  if (!seen.first(signature, nowMs)) return { ok: false, why: "This request was already received" };
  return { ok: true };
}

/** Signatures accepted in the last window (with the clock skew allowed both ways), forgotten after it. */
export class ReplayGuard {
  private readonly until = new Map<string, number>();

  /** True the first time a signature is seen in the window. */
  first(signature: string, nowMs: number): boolean {
    for (const [s, t] of this.until) {
      if (t > nowMs) break;
      this.until.delete(s);
    }
    if (this.until.has(signature)) return false;
    this.until.set(signature, nowMs + 2 * REPLAY_WINDOW_S * 1000);
    return true;
  }
}
