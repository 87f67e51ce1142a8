// The Slack app's settings, from the environment only (lib/env.ts parses them; docs/slack.md lists them).
// The bot token stays in this object and the Web API client: it is never logged, stored or sent elsewhere.
import "server-only";
import { type Env, EnvError, env } from "../../env.ts";

export type SlackConfig = {
  /** The bot token (xoxb-…), sent only as the Web API's bearer. */
  token: string;
  /** The app's signing secret: interaction payloads are verified with it (./signature.ts). */
  signingSecret: string;
  /** The Web API's base URL (default Slack's own; a proxy or the tests' wire-format server). */
  apiUrl?: string;
  /** A routing group's channel id: requests routed to the group are posted there. */
  channels: Record<string, string>;
};

/** Slack as configured, or null when it is not (both the token and the signing secret are needed). */
export function slackConfigOf(
  e: Pick<Env, "AFK_SLACK_BOT_TOKEN" | "AFK_SLACK_SIGNING_SECRET" | "AFK_SLACK_API_URL" | "AFK_SLACK_CHANNELS">,
) {
  const { AFK_SLACK_BOT_TOKEN: token, AFK_SLACK_SIGNING_SECRET: signingSecret } = e;
  if (!token && !signingSecret) return null;
  if (!token) throw new EnvError("Invalid environment variable AFK_SLACK_BOT_TOKEN: is needed with AFK_SLACK_SIGNING_SECRET");
  if (!signingSecret) throw new EnvError("Invalid environment variable AFK_SLACK_SIGNING_SECRET: is needed with AFK_SLACK_BOT_TOKEN");
  return { token, signingSecret, apiUrl: e.AFK_SLACK_API_URL, channels: e.AFK_SLACK_CHANNELS } satisfies SlackConfig;
}

export const slackConfig = (): SlackConfig | null => slackConfigOf(env());
