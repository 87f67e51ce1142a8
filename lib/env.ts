// Environment, parsed once with zod. With no .env at all the app runs in embedded mode: SQLite under
// data/ and a NEXTAUTH_SECRET generated into data/ (never committed).
import "server-only";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { parseFailpoint } from "./runner/failpoints.ts";
import { type SsoConfig, claimPathKeys, groupMapSchema } from "./auth/sso.ts";
import { roleSchema } from "./auth/roles.ts";

export const DEFAULT_DATABASE_URL = "file:./data/afk.db";

const schema = z.object({
  DATABASE_URL: z
    .string()
    .default(DEFAULT_DATABASE_URL)
    .refine((v) => /^file:.+/.test(v) || isPostgresUrl(v), {
      message: "must be file:<path> (SQLite) or postgres://user@host:port/db (PostgreSQL)",
    }),
  NEXTAUTH_SECRET: z.string().min(16, "must be at least 16 characters").optional(),
  NEXTAUTH_URL: z.url({ message: "must be an absolute URL such as http://localhost:3000" }).optional(),
  AFK_DATA_DIR: z.string().default("data"),
  AFK_DEMO_PASSWORD: z.string().min(8, "must be at least 8 characters").default("afk-demo-2026"),
  LOG_LEVEL: z.enum(["debug", "info", "warn", "error"]).default("info"),
  // Real model providers; each is enabled by its key (or base URL). Keys never leave this process's env.
  OPENAI_API_KEY: z.string().min(1).optional(),
  OPENAI_BASE_URL: z.url({ message: "must be an absolute URL" }).optional(),
  ANTHROPIC_API_KEY: z.string().min(1).optional(),
  ANTHROPIC_BASE_URL: z.url({ message: "must be an absolute URL" }).optional(),
  OPENAI_COMPATIBLE_BASE_URL: z.url({ message: "must be an absolute URL such as http://127.0.0.1:11434/v1" }).optional(),
  OPENAI_COMPATIBLE_API_KEY: z.string().min(1).optional(),
  // Pause webhook: POST a signed JSON event when a run waits for a human.
  AFK_WEBHOOK_URL: z.url({ message: "must be an absolute URL" }).optional(),
  AFK_WEBHOOK_SECRET: z.string().min(16, "must be at least 16 characters").optional(),
  // Email notifications (lib/notify, docs/notifications.md): smtp://user:password@host:587 or smtps://…:465.
  // The password stays in this process's env: never logged, stored or shown.
  AFK_SMTP_URL: z
    .url({ message: "must be smtp://user:password@host:port or smtps://…" })
    .refine((v) => /^smtps?:\/\//.test(v), { message: "must start with smtp:// or smtps://" })
    .optional(),
  AFK_MAIL_FROM: z.string().min(3).default("AFK Console <afk@localhost>"),
  // How often each instance looks for notifications due (ms), and the least time between two immediate
  // messages to one person on one channel (what comes between goes in one digest).
  AFK_NOTIFY_POLL_MS: z.coerce.number().int().min(50).max(60_000).default(1000),
  AFK_NOTIFY_BURST_S: z.coerce.number().int().min(0).max(3600).default(30),
  // Background work of every instance: the deadline/resume sweep (seconds; 0 turns it off) and retention.
  AFK_SWEEP_INTERVAL_S: z.coerce.number().int().min(0).max(3600).default(5),
  // A run's executor renews its lease this often (a third of it); a dead one's runs move after it expires.
  AFK_LEASE_S: z.coerce.number().int().min(2).max(600).default(10),
  // PostgreSQL: how many runs this process executes at once from the queue (0: this instance only
  // enqueues, e.g. a web-only instance next to `npm run worker` processes). SQLite runs in-process.
  AFK_WORKERS: z.coerce.number().int().min(0).max(64).default(4),
  // SIGTERM: the one budget for runs to pause or end before the rest are handed back (grace periods exceed it).
  AFK_DRAIN_S: z.coerce.number().int().min(1).max(600).default(20),
  AFK_RETENTION_DAYS: z.coerce.number().int().positive().optional(),
  // Metrics and probes (lib/ops). /api/metrics answers only a scrape with this bearer token (unset: off);
  // AFK_OPS_PORT opens this process's own small HTTP port (/livez, /readyz, /metrics; a worker's only way
  // to be probed), on AFK_OPS_HOST (loopback unless said otherwise; 0.0.0.0 in a container).
  AFK_METRICS_TOKEN: z.string().min(16, "must be at least 16 characters").optional(),
  AFK_OPS_PORT: z.coerce.number().int().min(1).max(65_535).optional(),
  AFK_OPS_HOST: z.string().min(1).default("127.0.0.1"),
  // The demo model answers after this many milliseconds, as a real model would take seconds.
  AFK_DEMO_LATENCY_MS: z.coerce.number().int().min(0).max(600_000).default(0),
  // "0" makes the demo tools ignore their idempotency key (no unique constraint protects them): the crash
  // tests use it to count executions of tools that do not de-duplicate themselves.
  AFK_DEMO_TOOLS_IDEMPOTENT: z.enum(["0", "1"]).default("1"),
  // SQLite's synchronous pragma (see lib/db/client.ts): NORMAL survives a process crash, FULL an OS crash too.
  AFK_SQLITE_SYNCHRONOUS: z.enum(["NORMAL", "FULL"]).default("NORMAL"),
  // Arms one of the runner's named failpoints (lib/runner/failpoints.ts), e.g. post_llm:2:kill. Tests only.
  AFK_FAILPOINT: z
    .string()
    .optional()
    .transform((spec, ctx) => {
      try {
        return parseFailpoint(spec);
      } catch (e) {
        ctx.addIssue({ code: "custom", message: e instanceof Error ? e.message : String(e) });
        return z.NEVER;
      }
    }),
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  // Single sign-on through an OpenID Connect provider (README "Single sign-on"): the issuer turns it on.
  AFK_OIDC_ISSUER: z.url({ message: "must be the IdP's issuer URL, such as https://idp.example.com/realms/acme" }).optional(),
  AFK_OIDC_CLIENT_ID: z.string().min(1).optional(),
  AFK_OIDC_CLIENT_SECRET: z.string().min(1).optional(),
  AFK_OIDC_NAME: z.string().trim().min(1).max(60).default("single sign-on"),
  AFK_OIDC_SCOPES: z
    .string()
    .default("openid email profile")
    .refine((s) => s.split(/\s+/).includes("openid"), { message: "must include openid" }),
  AFK_OIDC_GROUPS_CLAIM: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .default("groups")
    .refine((p) => claimPathKeys(p) !== null, {
      message: 'must be a claim name, a dotted path, bracketed keys (["https://example.com/claims"].groups) or a JSON pointer',
    }),
  AFK_OIDC_GROUP_MAP: z
    .string()
    .default("{}")
    .transform((text, ctx) => {
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        ctx.addIssue({ code: "custom", message: "must be JSON: an object of IdP group → {role?, groups?}" });
        return z.NEVER;
      }
      const r = groupMapSchema.safeParse(json);
      if (r.success) return r.data;
      const i = r.error.issues[0];
      ctx.addIssue({ code: "custom", message: `${i.path.map(String).join(".") || "(the map)"}: ${i.message}` });
      return z.NEVER;
    }),
  AFK_OIDC_DEFAULT_ROLE: roleSchema.optional(),
  // The first admin, made when a web instance starts on a database with no admin (README "Deploy"): the
  // email, and a file holding the password (a mounted Secret; never a password in the environment).
  AFK_BOOTSTRAP_ADMIN_EMAIL: z.email({ message: "must be an email address" }).optional(),
  AFK_BOOTSTRAP_ADMIN_PASSWORD_FILE: z.string().min(1).optional(),
  // "off": only the IdP signs people in (API tokens still work).
  AFK_PASSWORD_SIGNIN: z.enum(["on", "off"]).default("on"),
  // Traces (README "Operate it"): OpenTelemetry starts only when an OTLP endpoint is set; the standard
  // variables, read here so a typo stops the start instead of silently sending nothing.
  OTEL_EXPORTER_OTLP_ENDPOINT: z
    .url({ protocol: /^https?$/, message: "must be the collector's OTLP/HTTP base URL, such as http://127.0.0.1:4318" })
    .optional(),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z
    .url({ protocol: /^https?$/, message: "must be the full traces URL, such as http://127.0.0.1:4318/v1/traces" })
    .optional(),
  // The console sends OTLP/HTTP with JSON bodies, which every collector's HTTP port takes whatever this says.
  OTEL_EXPORTER_OTLP_PROTOCOL: z
    .enum(["http/json", "http/protobuf"], { message: "must be http/json (gRPC is not supported: use the collector's HTTP port)" })
    .optional(),
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: z
    .enum(["http/json", "http/protobuf"], { message: "must be http/json (gRPC is not supported: use the collector's HTTP port)" })
    .optional(),
  OTEL_SERVICE_NAME: z.string().trim().min(1).optional(),
  OTEL_SDK_DISABLED: z.enum(["true", "false"]).default("false"),
  // Prompts, answers, tool arguments and results on spans: off unless turned on (they may hold personal data).
  OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: z.enum(["true", "false"]).default("false"),
  // Slack (docs/slack.md): the app's bot token and signing secret, both or neither; the Web API's base URL
  // (a proxy, or the tests' wire-format server); routing groups' channels as "finance=C0123,ops=C0456".
  AFK_SLACK_BOT_TOKEN: z
    .string()
    .regex(/^xox[a-z]-\S+$/, "must be the app's bot token (xoxb-…)")
    .optional(),
  AFK_SLACK_SIGNING_SECRET: z.string().min(16, "must be the app's signing secret (Basic Information)").optional(),
  AFK_SLACK_API_URL: z.url({ protocol: /^https?$/, message: "must be an absolute URL such as https://slack.com/api/" }).optional(),
  AFK_SLACK_CHANNELS: z
    .string()
    .default("")
    .transform((text, ctx) => {
      const map: Record<string, string> = {};
      for (const pair of text
        .split(",")
        .map((p) => p.trim())
        .filter(Boolean)) {
        const m = /^([^=\s]+)\s*=\s*([A-Z0-9]+)$/.exec(pair);
        if (!m) {
          ctx.addIssue({ code: "custom", message: `"${pair}" is not group=CHANNELID (e.g. finance=C0123ABC)` });
          return z.NEVER;
        }
        map[m[1]] = m[2];
      }
      return map;
    }),
});

export type Env = z.infer<typeof schema> & {
  NEXTAUTH_SECRET: string;
  databaseProvider: "sqlite" | "postgresql";
  /** Single sign-on, when AFK_OIDC_ISSUER is set. */
  sso: SsoConfig | null;
};

export function isPostgresUrl(v: string): boolean {
  if (!/^postgres(ql)?:\/\//.test(v)) return false;
  try {
    return new URL(v).hostname.length > 0;
  } catch {
    return false;
  }
}

export class EnvError extends Error {}

/** A variable set to "" is unset (compose's `${X:-}`, an empty Secret key), in every entry point. */
export const withoutEmpty = (source: Record<string, string | undefined>): Record<string, string> =>
  Object.fromEntries(Object.entries(source).filter((e): e is [string, string] => e[1] !== undefined && e[1] !== ""));

export function parseEnv(source: Record<string, string | undefined> = process.env): Env {
  const r = schema.safeParse(withoutEmpty(source));
  if (!r.success) {
    const issue = r.error.issues[0];
    throw new EnvError(`Invalid environment variable ${issue.path.join(".")}: ${issue.message}`);
  }
  const e = r.data;
  if (!e.AFK_BOOTSTRAP_ADMIN_EMAIL !== !e.AFK_BOOTSTRAP_ADMIN_PASSWORD_FILE)
    throw new EnvError(
      e.AFK_BOOTSTRAP_ADMIN_EMAIL
        ? "Invalid environment variable AFK_BOOTSTRAP_ADMIN_PASSWORD_FILE: is needed with AFK_BOOTSTRAP_ADMIN_EMAIL (a file holding the password)"
        : "Invalid environment variable AFK_BOOTSTRAP_ADMIN_EMAIL: is needed with AFK_BOOTSTRAP_ADMIN_PASSWORD_FILE",
    );
  return {
    ...e,
    NEXTAUTH_SECRET: e.NEXTAUTH_SECRET ?? embeddedSecret(e.AFK_DATA_DIR),
    databaseProvider: isPostgresUrl(e.DATABASE_URL) ? "postgresql" : "sqlite",
    sso: ssoOf(e),
  };
}

/** `npm run dev` without NEXTAUTH_URL (a first run): next-auth takes the console's address from each request,
 * as Auth.js does in development, instead of warning at the first sign-in that NEXTAUTH_URL is missing. A
 * production server never trusts the request's Host header for its links: it needs NEXTAUTH_URL. */
export function trustRequestHostInDevelopment(e: Env, target: Record<string, string | undefined> = process.env): void {
  if (e.NODE_ENV === "development" && !e.NEXTAUTH_URL) target.AUTH_TRUST_HOST ??= "1";
}

function ssoOf(e: z.infer<typeof schema>): SsoConfig | null {
  const fail = (name: string, message: string) => {
    throw new EnvError(`Invalid environment variable ${name}: ${message}`);
  };
  if (!e.AFK_OIDC_ISSUER) {
    if (e.AFK_OIDC_CLIENT_ID || e.AFK_OIDC_CLIENT_SECRET) fail("AFK_OIDC_ISSUER", "is needed with AFK_OIDC_CLIENT_ID");
    if (e.AFK_PASSWORD_SIGNIN === "off") fail("AFK_PASSWORD_SIGNIN", "off needs single sign-on (AFK_OIDC_ISSUER), or nobody could sign in");
    return null;
  }
  if (!e.AFK_OIDC_CLIENT_ID) return fail("AFK_OIDC_CLIENT_ID", "is needed with AFK_OIDC_ISSUER");
  if (!e.AFK_OIDC_CLIENT_SECRET) return fail("AFK_OIDC_CLIENT_SECRET", "is needed with AFK_OIDC_ISSUER");
  if (Object.keys(e.AFK_OIDC_GROUP_MAP).length === 0 && !e.AFK_OIDC_DEFAULT_ROLE)
    return fail("AFK_OIDC_GROUP_MAP", "maps no IdP group and there is no AFK_OIDC_DEFAULT_ROLE: nobody could sign in");
  return {
    issuer: e.AFK_OIDC_ISSUER,
    clientId: e.AFK_OIDC_CLIENT_ID,
    clientSecret: e.AFK_OIDC_CLIENT_SECRET,
    name: e.AFK_OIDC_NAME,
    scopes: e.AFK_OIDC_SCOPES.trim().split(/\s+/).join(" "),
    groupsClaim: e.AFK_OIDC_GROUPS_CLAIM,
    groupMap: e.AFK_OIDC_GROUP_MAP,
    defaultRole: e.AFK_OIDC_DEFAULT_ROLE,
  };
}

function embeddedSecret(dataDir: string): string {
  // `next build` evaluates modules that read env(): a secret written then would sit in the build checkout
  // and be traced into the deployable bundle (scripts/bundle.mjs). The build signs nothing: a throwaway one.
  if (process.env.NEXT_PHASE === "phase-production-build") return randomBytes(32).toString("base64url");
  // turbopackIgnore: Next's file tracing would otherwise take any `*/.nextauth-secret` of the build checkout
  // for a file the server reads, and copy it into the standalone folder.
  const file = path.resolve(dataDir, ".nextauth-secret");
  if (existsSync(/* turbopackIgnore: true */ file)) return readFileSync(/* turbopackIgnore: true */ file, "utf8").trim();
  mkdirSync(/* turbopackIgnore: true */ path.dirname(file), { recursive: true });
  const secret = randomBytes(32).toString("base64url");
  writeFileSync(/* turbopackIgnore: true */ file, secret, { mode: 0o600, flag: "wx" });
  return secret;
}

// The CLI (scripts/afk.ts): AFK_URL + AFK_TOKEN act on a server over its REST API; otherwise it acts on
// DATABASE_URL as AFK_ACTOR (a user's email; `--as` overrides it). Parsed apart from env(): a remote CLI
// needs neither a database nor a secret.
const cliSchema = z.object({
  AFK_URL: z.url({ message: "must be the console's base URL, such as https://afk.example.com" }).optional(),
  AFK_TOKEN: z.string().min(1).optional(),
  AFK_ACTOR: z.string().min(1).optional(),
});
export type CliEnv = z.infer<typeof cliSchema>;

export function cliEnv(source: Record<string, string | undefined> = process.env): CliEnv {
  const r = cliSchema.safeParse(withoutEmpty(source));
  if (!r.success) {
    const issue = r.error.issues[0];
    throw new EnvError(`Invalid environment variable ${issue.path.join(".")}: ${issue.message}`);
  }
  return r.data;
}

let cached: Env | undefined;

/** Forget the parsed environment (tests that change process.env; the app parses it once). */
export function resetEnv() {
  cached = undefined;
}

export function env(): Env {
  if (!cached) {
    cached = parseEnv();
    // next-auth reads the variable itself too; an empty one counts as unset here as everywhere.
    if (!process.env.NEXTAUTH_SECRET) process.env.NEXTAUTH_SECRET = cached.NEXTAUTH_SECRET;
  }
  return cached;
}
