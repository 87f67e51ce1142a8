import { existsSync, mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { EnvError, parseEnv, trustRequestHostInDevelopment } from "@/lib/env";

describe("environment", () => {
  it("runs embedded with no variables: SQLite and a generated, persisted secret", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "afk-env-"));
    const e = parseEnv({ AFK_DATA_DIR: dir });
    expect(e.databaseProvider).toBe("sqlite");
    expect(e.DATABASE_URL).toBe("file:./data/afk.db");
    expect(e.NEXTAUTH_SECRET.length).toBeGreaterThanOrEqual(32);
    expect(readFileSync(path.join(dir, ".nextauth-secret"), "utf8")).toBe(e.NEXTAUTH_SECRET);
    expect(statSync(path.join(dir, ".nextauth-secret")).mode & 0o077).toBe(0);
    expect(parseEnv({ AFK_DATA_DIR: dir }).NEXTAUTH_SECRET).toBe(e.NEXTAUTH_SECRET);
  });

  it("picks PostgreSQL from a postgres URL", () => {
    expect(parseEnv({ DATABASE_URL: "postgresql://u:p@db:5432/afk", NEXTAUTH_SECRET: "s".repeat(32) }).databaseProvider).toBe("postgresql");
  });

  it.each(["mysql://x", "postgres://", "not a url", "file:"])("rejects DATABASE_URL=%j with one line naming it", (v) => {
    const err = (() => {
      try {
        parseEnv({ DATABASE_URL: v, NEXTAUTH_SECRET: "s".repeat(32) });
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(EnvError);
    expect((err as Error).message).toMatch(/^Invalid environment variable DATABASE_URL: /);
    expect((err as Error).message).not.toContain("\n");
  });

  it("arms a named failpoint from AFK_FAILPOINT and names a wrong one", () => {
    const base = { NEXTAUTH_SECRET: "s".repeat(32) };
    expect(parseEnv({ ...base, AFK_FAILPOINT: "post_llm@refund-desk:2:throw" }).AFK_FAILPOINT).toEqual({
      at: "post_llm",
      agent: "refund-desk",
      step: 2,
      action: "throw",
    });
    expect(parseEnv({ ...base, AFK_FAILPOINT: "tool_executed" }).AFK_FAILPOINT).toMatchObject({ at: "tool_executed", action: "kill" });
    expect(parseEnv(base).AFK_FAILPOINT).toBeUndefined();
    expect(() => parseEnv({ ...base, AFK_FAILPOINT: "post_lm:2" })).toThrow(
      /^Invalid environment variable AFK_FAILPOINT: unknown failpoint "post_lm"/,
    );
    expect(() => parseEnv({ ...base, AFK_SQLITE_SYNCHRONOUS: "OFF" })).toThrow(/^Invalid environment variable AFK_SQLITE_SYNCHRONOUS/);
  });

  it("trusts the request's host for next-auth's links only in development without NEXTAUTH_URL", () => {
    const base = { NEXTAUTH_SECRET: "s".repeat(32) };
    const trusted = (source: Record<string, string>) => {
      const target: Record<string, string | undefined> = {};
      trustRequestHostInDevelopment(parseEnv(source), target);
      return target.AUTH_TRUST_HOST;
    };
    expect(trusted({ ...base, NODE_ENV: "development" })).toBe("1");
    expect(trusted({ ...base, NODE_ENV: "development", NEXTAUTH_URL: "http://localhost:3400" })).toBeUndefined();
    expect(trusted({ ...base, NODE_ENV: "production" })).toBeUndefined();
    expect(trusted({ ...base, NODE_ENV: "test" })).toBeUndefined();
  });

  it("takes an empty value for unset (compose passing an unset variable as an empty string, an empty Secret key): defaults apply, optional ones stay off", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "afk-env-"));
    const e = parseEnv({
      AFK_DATA_DIR: dir,
      DATABASE_URL: "",
      NEXTAUTH_SECRET: "",
      NEXTAUTH_URL: "",
      AFK_METRICS_TOKEN: "",
      AFK_WORKERS: "",
    });
    expect(e.DATABASE_URL).toBe("file:./data/afk.db");
    expect(e.AFK_METRICS_TOKEN).toBeUndefined();
    expect(e.NEXTAUTH_URL).toBeUndefined();
    expect(e.AFK_WORKERS).toBe(4);
    expect(e.NEXTAUTH_SECRET).toBe(readFileSync(path.join(dir, ".nextauth-secret"), "utf8"));
    // A value that is there but wrong still stops the start with one line naming it.
    expect(() => parseEnv({ AFK_DATA_DIR: dir, AFK_METRICS_TOKEN: "short" })).toThrow(/^Invalid environment variable AFK_METRICS_TOKEN: /);
  });

  it("writes no secret file during `next build` (it would be traced into the deployable bundle)", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "afk-env-"));
    const phase = process.env.NEXT_PHASE;
    process.env.NEXT_PHASE = "phase-production-build";
    try {
      expect(parseEnv({ AFK_DATA_DIR: dir }).NEXTAUTH_SECRET.length).toBeGreaterThanOrEqual(32);
    } finally {
      if (phase === undefined) delete process.env.NEXT_PHASE;
      else process.env.NEXT_PHASE = phase;
    }
    expect(existsSync(path.join(dir, ".nextauth-secret"))).toBe(false);
  });
});
