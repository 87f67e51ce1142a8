// A real OpenID Connect provider for the tests (the `oidc-provider` package, certified by the OpenID
// Foundation), on localhost: discovery, the authorization code flow with PKCE, signed ID tokens, userinfo.
// Its own sign-in page takes a login and password; accounts are in groups, carried in a `groups` claim
// (userinfo, as the spec puts scope claims) and in a nested `realm_access.roles` (ID token and userinfo).
// For the tests only: POST /test/accounts/<login> {"groups":[…]} moves an account between groups, as an
// IdP administrator would.
//   node --import tsx e2e/idp.ts <port> <app base URL>…
import { generateKeyPairSync } from "node:crypto";
import http from "node:http";
import Provider, { type Configuration, type KoaContextWithOIDC } from "oidc-provider";
import { IDP_CLIENT, IDP_PASSWORD } from "./sso/config.ts";

type Account = { name: string; groups: string[]; verified: boolean };
const accounts = new Map<string, Account>([
  ["alice", { name: "Alice Admin", groups: ["console-admins"], verified: true }],
  ["bob", { name: "Bob Finance", groups: ["finance-approvers", "everyone"], verified: true }],
  ["carol", { name: "Carol Ops", groups: ["ops-reviewers", "everyone"], verified: true }],
  ["dave", { name: "Dave Staff", groups: ["staff", "everyone"], verified: true }],
  ["erin", { name: "Erin Contractor", groups: ["contractors"], verified: true }],
  // Has the email of a local (password) user but the IdP has not verified it: must not take that user over.
  ["mallory", { name: "Mallory", groups: ["console-admins"], verified: false }],
]);
const emailOf = (login: string) => (login === "mallory" ? "admin@example.com" : `${login}@example.org`);

export function startIdp(port: number, appBaseUrls: string[]) {
  const issuer = `http://localhost:${port}`;
  const key = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ format: "jwk" });
  const config: Configuration = {
    clients: [
      {
        client_id: IDP_CLIENT.id,
        client_secret: IDP_CLIENT.secret,
        redirect_uris: appBaseUrls.map((u) => `${u}/api/auth/callback/oidc`),
        grant_types: ["authorization_code"],
        response_types: ["code"],
      },
    ],
    jwks: { keys: [{ ...key, kid: "test-1", use: "sig", alg: "RS256" }] as never },
    scopes: ["openid", "email", "profile", "groups"],
    claims: { openid: ["sub", "realm_access"], email: ["email", "email_verified"], profile: ["name"], groups: ["groups"] },
    findAccount: (_ctx, id) => {
      const a = accounts.get(id);
      if (!a) return undefined;
      return {
        accountId: id,
        claims: () => ({
          sub: id,
          email: emailOf(id),
          email_verified: a.verified,
          name: a.name,
          groups: [...a.groups],
          realm_access: { roles: [...a.groups] },
        }),
      };
    },
    // The console is this IdP's own client: no consent screen (as a company IdP's first-party apps).
    loadExistingGrant: async (ctx: KoaContextWithOIDC) => {
      const client = ctx.oidc.client!;
      const session = ctx.oidc.session!;
      const grantId = (ctx.oidc.result?.consent as { grantId?: string } | undefined)?.grantId ?? session.grantIdFor(client.clientId);
      if (grantId) return ctx.oidc.provider.Grant.find(grantId);
      const grant = new ctx.oidc.provider.Grant({ clientId: client.clientId, accountId: session.accountId! });
      grant.addOIDCScope("openid email profile groups");
      await grant.save();
      return grant;
    },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    features: { devInteractions: { enabled: false } },
    cookies: { keys: ["idp-test-cookie-key-0123456789"] },
    pkce: { methods: ["S256"], required: () => true },
    ttl: { AccessToken: 600, AuthorizationCode: 60, IdToken: 600, Interaction: 600, Session: 3600, Grant: 3600 },
    renderError: async (ctx, out) => {
      ctx.type = "html";
      ctx.body = `<!doctype html><title>IdP error</title><h1>Error</h1><pre>${html(JSON.stringify(out))}</pre>`;
    },
  };
  const provider = new Provider(issuer, config);
  const oidc = provider.callback();

  const server = http.createServer(async (req, res) => {
    try {
      const url = new URL(req.url ?? "/", issuer);
      const interaction = /^\/interaction\/([\w-]+)(\/login)?$/.exec(url.pathname);
      if (url.pathname === "/health") return void res.end("ok");
      if (url.pathname.startsWith("/test/accounts/") && req.method === "POST") {
        const login = decodeURIComponent(url.pathname.slice("/test/accounts/".length));
        const a = accounts.get(login);
        if (!a) return void res.writeHead(404).end();
        a.groups = (JSON.parse(await body(req)) as { groups: string[] }).groups;
        return void res.writeHead(204).end();
      }
      if (interaction && req.method === "GET") {
        const details = await provider.interactionDetails(req, res);
        return page(res, loginPage(details.uid, null));
      }
      if (interaction?.[2] && req.method === "POST") {
        const form = new URLSearchParams(await body(req));
        const login = String(form.get("login") ?? "").trim();
        if (!accounts.has(login) || form.get("password") !== IDP_PASSWORD) {
          const details = await provider.interactionDetails(req, res);
          return page(res, loginPage(details.uid, "Unknown login or wrong password"));
        }
        return void (await provider.interactionFinished(req, res, { login: { accountId: login } }, { mergeWithLastSubmission: false }));
      }
      oidc(req, res);
    } catch (e) {
      res.writeHead(500, { "content-type": "text/plain" }).end(String(e));
    }
  });
  return new Promise<http.Server>((resolve) => server.listen(port, () => resolve(server)));
}

function body(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let s = "";
    req.on("data", (d) => {
      s += d;
    });
    req.on("end", () => resolve(s));
    req.on("error", reject);
  });
}

const html = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(res: http.ServerResponse, html: string) {
  res.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" }).end(html);
}

function loginPage(uid: string, error: string | null) {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Example IdP</title></head><body>
<h1>Example IdP</h1>${error ? `<p role="alert">${html(error)}</p>` : ""}
<form method="post" action="/interaction/${html(uid)}/login">
<label>Login <input name="login" autocomplete="username" required></label>
<label>Password <input name="password" type="password" autocomplete="current-password" required></label>
<button type="submit">Continue</button></form></body></html>`;
}

if (process.argv[1]?.endsWith("idp.ts")) {
  const [port, ...apps] = process.argv.slice(2);
  await startIdp(Number(port), apps);
  console.log(`idp: http://localhost:${port} for ${apps.join(", ")}`);
}
