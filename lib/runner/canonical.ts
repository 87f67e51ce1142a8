import * as crypto from "node:crypto";

/**
 * Canonical JSON: object keys sorted, no whitespace, so equal values hash equally whatever their key order.
 * Every log entry and effect is hashed through this on write and on resume; plain loops, because the
 * map/filter/join form cost three times as much on a 1,000-step resume.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value ?? null);
  if (Array.isArray(value)) {
    let out = "[";
    for (let i = 0; i < value.length; i++) out += (i === 0 ? "" : ",") + canonicalJson(value[i]);
    return `${out}]`;
  }
  const obj = value as Record<string, unknown>;
  let out = "{";
  let first = true;
  for (const k of Object.keys(obj).sort()) {
    const v = obj[k];
    if (v === undefined) continue;
    out += `${first ? "" : ","}${JSON.stringify(k)}:${canonicalJson(v)}`;
    first = false;
  }
  return `${out}}`;
}

// crypto.hash (Node 20.12+) is the one-shot form: a third of createHash's cost on the short strings of a log chain.
const oneShot = (crypto as { hash?: (algorithm: string, data: string, encoding: "hex") => string }).hash;

/** Hex sha256 of a UTF-8 string. */
export function sha256(text: string): string {
  return oneShot ? oneShot("sha256", text, "hex") : crypto.createHash("sha256").update(text).digest("hex");
}

/** sha256 of the canonical JSON of a value: equal values hash equally whatever their key order. */
export function hashOf(value: unknown): string {
  return sha256(canonicalJson(value));
}

/** A JSON value frozen through and through: kept and shared by a cache, no reader can change what the next one gets. */
export function deepFreeze<T>(v: T): T {
  if (v && typeof v === "object" && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const x of Object.values(v)) deepFreeze(x);
  }
  return v;
}
