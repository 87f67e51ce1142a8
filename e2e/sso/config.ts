// The test IdP's client, accounts' password and the console's mapping of its groups: shared by the IdP
// (e2e/idp.ts), the servers' environment (playwright.config.ts) and the specs.
export const IDP_CLIENT = { id: "afk-console", secret: "idp-test-secret-not-for-production" };
export const IDP_PASSWORD = "idp-pass-2026";
export const IDP_NAME = "Example IdP";

/** IdP group → role and routing groups, as an operator would write AFK_OIDC_GROUP_MAP. */
export const GROUP_MAP = {
  "console-admins": { role: "admin" },
  "finance-approvers": { role: "reviewer", groups: ["finance"] },
  "ops-reviewers": { role: "reviewer", groups: ["ops"] },
  staff: { role: "submitter" },
};

export function ssoEnv(issuer: string): Record<string, string> {
  return {
    AFK_OIDC_ISSUER: issuer,
    AFK_OIDC_CLIENT_ID: IDP_CLIENT.id,
    AFK_OIDC_CLIENT_SECRET: IDP_CLIENT.secret,
    AFK_OIDC_NAME: IDP_NAME,
    AFK_OIDC_SCOPES: "openid email profile groups",
    AFK_OIDC_GROUP_MAP: JSON.stringify(GROUP_MAP),
  };
}
