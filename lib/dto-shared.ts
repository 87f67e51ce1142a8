// The part of lib/dto.ts the browser runs too. lib/dto.ts builds its schemas from the runner's (which hash
// with node:crypto), so a client component imports these from here; lib/dto.ts re-exports them, and
// everything on the server imports them from there. No imports: nothing here can pull the runner in.

/** One argument a decision changed: what the model asked for and what was approved. */
export type ArgChange = { field: string; before: unknown; after: unknown };

/** The arguments that differ between what was asked and what was approved, by name. The run page's
 * `changes`, the audit entry of an edited approval and the edit form's preview are all this. */
export function argChanges(before: Record<string, unknown>, after: Record<string, unknown> | null): ArgChange[] {
  if (!after) return [];
  const names = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  return names
    .filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k]))
    .map((field) => ({ field, before: before[field], after: after[field] }));
}

/** Every 4xx and 5xx answer's body (REST and server actions alike; lib/http.ts builds it). */
export type ErrorBody = { error: string; field?: string; message?: string; key?: string | null; current?: unknown };

/** The one line a person reads for an error: the message, or the error's kind and its message. */
export const errorText = (e: ErrorBody): string => (e.message ? `${e.error}: ${e.message}` : e.error);

/** The conversation of the run a request belongs to: the root's, or a subagent's under its delegating call. */
export function conversationOfRun<C extends { runId: string; children: Record<string, C> }>(conv: C | null, runId: string): C | null {
  if (!conv) return null;
  if (conv.runId === runId) return conv;
  for (const child of Object.values(conv.children)) {
    const found = conversationOfRun(child, runId);
    if (found) return found;
  }
  return null;
}
