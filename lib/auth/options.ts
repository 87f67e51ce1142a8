import type { NextAuthOptions } from "next-auth";
import type { OAuthConfig } from "next-auth/providers/oauth";
import Credentials from "next-auth/providers/credentials";
import { db } from "../db/client.ts";
import { userBySsoSubject } from "../db/accounts.ts";
import { env, trustRequestHostInDevelopment } from "../env.ts";
import type { LiveBus } from "../live/bus.ts";
import { clientAddress } from "./lockout.ts";
import { passwordSignIn } from "./password-signin.ts";
import { signOutEverywhere } from "./revocation.ts";
import { type SsoConfig, ssoSubjectOf } from "./sso.ts";
import { type SsoClaims, signInThroughIdp } from "./sso-users.ts";

const passwords = Credentials({
  name: "Email and password",
  credentials: { email: { label: "Email", type: "email" }, password: { label: "Password", type: "password" } },
  async authorize(raw, req) {
    const address = clientAddress(req?.headers as Record<string, string | undefined> | undefined);
    return passwordSignIn(db(), raw, address);
  },
});

/**
 * The IdP as next-auth's generic OpenID Connect provider: discovery from the issuer, the authorization
 * code flow with PKCE and state, the ID token verified (signature, issuer, audience, expiry). Claims are
 * the ID token's, completed by the userinfo endpoint's (many IdPs put email and groups only there); the
 * ID token's win where both have one.
 */
export function oidcProvider(cfg: SsoConfig): OAuthConfig<SsoClaims> {
  return {
    id: "oidc",
    name: cfg.name,
    type: "oauth",
    wellKnown: `${cfg.issuer.replace(/\/+$/, "")}/.well-known/openid-configuration`,
    clientId: cfg.clientId,
    clientSecret: cfg.clientSecret,
    authorization: { params: { scope: cfg.scopes } },
    checks: ["pkce", "state"],
    idToken: true,
    userinfo: {
      async request({ tokens, client }) {
        // next-auth hands openid-client's TokenSet, its ID token already verified.
        const set = tokens as typeof tokens & { claims(): SsoClaims };
        // openid-client checks that the userinfo's subject is the ID token's (it is given the whole set).
        const info = client.issuer.metadata.userinfo_endpoint && set.access_token ? await client.userinfo(set as never) : {};
        return { ...info, ...set.claims() };
      },
    },
    profile: (claims) => ({
      id: claims.sub,
      email: typeof claims.email === "string" ? claims.email : null,
      name: typeof claims.name === "string" ? claims.name : null,
    }),
  };
}

// liveBus: this process's live bus (for access notices), asked for when an event needs it; the route that
// serves next-auth hands it over from the composition root (lib/context.ts).
export function authOptions(liveBus: () => LiveBus): NextAuthOptions {
  const liveContext = () => ({ db: db(), live: liveBus() });
  const e = env();
  trustRequestHostInDevelopment(e);
  const sso = e.sso;
  return {
    secret: e.NEXTAUTH_SECRET,
    session: { strategy: "jwt", maxAge: 8 * 60 * 60 },
    // Errors (a refused IdP sign-in included) are shown on the sign-in page, with the provider's button.
    pages: { signIn: "/login", error: "/login" },
    providers: [...(e.AFK_PASSWORD_SIGNIN === "on" ? [passwords] : []), ...(sso ? [oidcProvider(sso)] : [])],
    events: {
      // Signing out ends the session everywhere: a copy of the old cookie no longer works, and the
      // user's open event streams, on every instance, close.
      async signOut({ token }) {
        if (token?.sub) await signOutEverywhere(liveContext(), token.sub);
      },
    },
    callbacks: {
      async signIn({ account, profile }) {
        if (account?.provider !== "oidc" || !sso) return true;
        const outcome = await signInThroughIdp(liveContext(), sso, profile as SsoClaims);
        return outcome.ok ? true : `/login?error=${outcome.refusal}`;
      },
      async jwt({ token, user, account, profile }) {
        if (account?.provider === "oidc" && profile) {
          // The session is this console's user (signInThroughIdp made or updated it), not the IdP's subject.
          const claims = profile as SsoClaims;
          const row = await userBySsoSubject(db(), ssoSubjectOf(claims.iss, claims.sub));
          if (!row) throw new Error("The IdP's user was not provisioned");
          return { ...token, sub: row.id, email: row.email, name: row.name, role: row.role, sessionVersion: row.sessionVersion };
        }
        if (user) {
          const u = user as typeof user & { role: string; sessionVersion: number };
          token.role = u.role;
          token.sessionVersion = u.sessionVersion;
        }
        return token;
      },
      session({ session, token }) {
        session.user = { ...session.user, id: token.sub, role: token.role, sessionVersion: token.sessionVersion } as typeof session.user;
        return session;
      },
    },
  };
}

/** What the sign-in page offers: password sign-in, and the IdP's button by its name. */
export function signInMethods(): { passwords: boolean; sso: { id: string; name: string } | null } {
  const e = env();
  return { passwords: e.AFK_PASSWORD_SIGNIN === "on", sso: e.sso ? { id: "oidc", name: e.sso.name } : null };
}
