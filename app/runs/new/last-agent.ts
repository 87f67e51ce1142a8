// The agent a person last started a run of, remembered in this browser so the start form opens on it. A
// cookie rather than localStorage: the server renders the form with it already chosen, so nothing changes
// under the reader after hydration. Tied to the user, so someone else signing in here starts from the default.
export const LAST_AGENT_COOKIE = "afk_last_agent";

export const lastAgentValue = (userId: string, agent: string) => encodeURIComponent(`${userId}|${agent}`);

/** The remembered agent of this user, from the cookie's value, or null. */
export function lastAgentOf(cookie: string | undefined, userId: string): string | null {
  if (!cookie) return null;
  let v: string;
  try {
    v = decodeURIComponent(cookie);
  } catch {
    return null;
  }
  const i = v.lastIndexOf("|");
  return i > 0 && v.slice(0, i) === userId ? v.slice(i + 1) : null;
}

export function rememberLastAgent(userId: string, agent: string) {
  // biome-ignore lint/suspicious/noDocumentCookie: a preference cookie, read by the server's render of this page
  document.cookie = `${LAST_AGENT_COOKIE}=${lastAgentValue(userId, agent)}; path=/runs/new; max-age=31536000; samesite=lax`;
}
