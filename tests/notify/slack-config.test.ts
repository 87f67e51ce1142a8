// Slack's settings come from the environment only, both secrets or neither, the group channels named one
// by one; the route answers 404 while Slack is off and verifies every request once it is on; the v0
// signature is exactly Slack's documented example.
import { afterEach, describe, expect, it } from "vitest";
import { EnvError, parseEnv, resetEnv } from "@/lib/env";
import { slackConfigOf } from "@/lib/notify/slack/config";
import { slackInteractionsRoute } from "@/lib/services/slack-interactions";
import { ReplayGuard, slackSignature, verifySlackRequest } from "@/lib/notify/slack/signature";
import type { AppContext } from "@/lib/context";

const base = { NEXTAUTH_SECRET: "s".repeat(32) };
const failure = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    return e as Error;
  }
  throw new Error("no failure");
};

describe("Slack configuration", () => {
  afterEach(() => {
    for (const k of ["AFK_SLACK_BOT_TOKEN", "AFK_SLACK_SIGNING_SECRET", "AFK_SLACK_API_URL", "AFK_SLACK_CHANNELS"]) delete process.env[k];
    resetEnv();
  });

  it("is off without variables, on with both, and names what is missing or malformed", () => {
    expect(slackConfigOf(parseEnv(base))).toBeNull();
    const on = parseEnv({
      ...base,
      AFK_SLACK_BOT_TOKEN: "xoxb-1-2-abc",
      AFK_SLACK_SIGNING_SECRET: "0123456789abcdef0123456789abcdef",
      AFK_SLACK_CHANNELS: "finance=C0123ABC, ops = C0456",
    });
    expect(slackConfigOf(on)).toEqual({
      token: "xoxb-1-2-abc",
      signingSecret: "0123456789abcdef0123456789abcdef",
      apiUrl: undefined,
      channels: { finance: "C0123ABC", ops: "C0456" },
    });
    const half = failure(() => slackConfigOf(parseEnv({ ...base, AFK_SLACK_BOT_TOKEN: "xoxb-1" })));
    expect(half).toBeInstanceOf(EnvError);
    expect(half.message).toBe("Invalid environment variable AFK_SLACK_SIGNING_SECRET: is needed with AFK_SLACK_BOT_TOKEN");
    expect(failure(() => parseEnv({ ...base, AFK_SLACK_CHANNELS: "finance:C0123" })).message).toBe(
      'Invalid environment variable AFK_SLACK_CHANNELS: "finance:C0123" is not group=CHANNELID (e.g. finance=C0123ABC)',
    );
    expect(failure(() => parseEnv({ ...base, AFK_SLACK_BOT_TOKEN: "not-a-token" })).message).toMatch(
      /^Invalid environment variable AFK_SLACK_BOT_TOKEN: /,
    );
  });

  it("the route answers 404 while Slack is off and 401 to an unsigned request once it is on", async () => {
    const ctx = {} as AppContext;
    const post = () => new Request("http://x/api/slack/interactions", { method: "POST", body: "payload=%7B%7D" });
    resetEnv();
    expect((await slackInteractionsRoute(() => ctx)(post())).status).toBe(404);
    process.env.AFK_SLACK_BOT_TOKEN = "xoxb-1-2-abc";
    process.env.AFK_SLACK_SIGNING_SECRET = "0123456789abcdef0123456789abcdef";
    resetEnv();
    const r = await slackInteractionsRoute(() => ctx)(post());
    expect([r.status, await r.json()]).toEqual([401, { error: "X-Slack-Request-Timestamp and X-Slack-Signature are required" }]);
  });

  it("signs as Slack's documentation's example and allows five minutes either way", () => {
    // The example of https://api.slack.com/authentication/verifying-requests-from-slack.
    const secret = "8f742231b10e8888abcd99yyyzzz85a5";
    const body =
      "token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c";
    const ts = "1531420618";
    const signature = slackSignature(secret, ts, body);
    expect(signature).toBe("v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503");
    const at = Number(ts) * 1000;
    expect(verifySlackRequest(secret, { timestamp: ts, signature }, body, new ReplayGuard(), at + 300_000)).toEqual({ ok: true });
    expect(verifySlackRequest(secret, { timestamp: ts, signature }, body, new ReplayGuard(), at + 301_000).ok).toBe(false);
    expect(verifySlackRequest(secret, { timestamp: ts, signature }, body, new ReplayGuard(), at - 301_000).ok).toBe(false);
    const guard = new ReplayGuard();
    expect(verifySlackRequest(secret, { timestamp: ts, signature }, body, guard, at).ok).toBe(true);
    expect(verifySlackRequest(secret, { timestamp: ts, signature }, body, guard, at + 1000)).toEqual({
      ok: false,
      why: "This request was already received",
    });
    expect(verifySlackRequest(secret, { timestamp: ts, signature: signature.toUpperCase() }, body, guard, at).ok).toBe(false);
  });
});
