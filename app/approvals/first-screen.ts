// What the inbox page carries: its first screen, not the whole list. A page holds up to 200 approvals,
// and their data in the HTML (as what React hydrates from, ~120 KB of JSON) was most of the page's server
// time and bytes; the browser asks /api/approvals for the whole list as soon as it has hydrated. The server
// reads only the first rows for it (lib/services/inbox.ts inboxFirstScreen). Imported by the page (a server
// component) and the inbox (a client one): not a "use client" module, whose exports a server component only
// sees as references.
import type { InboxFirstScreenDto, InboxRowDto } from "@/lib/dto";

/**
 * The rows the server's HTML carries: a screenful, at a desk or on a phone. At 1280 × 800 the table's first
 * row starts 273 px down (navigation, title, filters, the keys' line, the table's header) and a row is 37 px
 * at the least (a one-line summary; 57 px with a two-line one): 15 rows fill the rest whatever the rows
 * (10 of two lines). At 390 × 844 a card is 178 px from 264 px down: 4 cards. A taller screen shows the
 * rows past these once the whole list has arrived, right after hydration.
 */
export const FIRST_ROWS = 15;

/** The inbox's data as the list reads it: the whole page from /api/approvals, or the page's first screen
 * (`firstScreenOf` set while it holds only the first rows). */
export type InboxData = InboxFirstScreenDto;

/** Routing: what this reviewer may decide comes first; the rest is listed read-only below it. */
export const routed = <T extends { canDecide: boolean }>(all: T[]): T[] => [
  ...all.filter((a) => a.canDecide),
  ...all.filter((a) => !a.canDecide),
];

/** The tools the filter offers: those of the rows given (the whole unfiltered page once it has arrived). */
export const toolsOf = (rows: Pick<InboxRowDto, "tool">[]): string[] => [...new Set(rows.map((a) => a.tool))].sort();

// The first screen's rows travel in the page's Flight payload as what React hydrates from: as objects, each
// row repeated its 17 field names (escaped, in the inline script), about half of a row's data. They travel
// as arrays of the fields' values in this order instead, and the inbox reads them back into rows.
const ROW_FIELDS = [
  "id",
  "runId",
  "subRunId",
  "agent",
  "rootAgent",
  "tool",
  "kind",
  "summary",
  "requestedBy",
  "requestedAtMs",
  "deadlineMs",
  "quorum",
  "groups",
  "canDecide",
  "approvals",
  "decidedByMe",
  "argsHash",
  "forkedFrom",
  "confirm",
] as const satisfies readonly (keyof InboxRowDto)[];
// Every field of a row is in ROW_FIELDS (a field added to InboxRowDto and not here fails to compile).
const allFields: Exclude<keyof InboxRowDto, (typeof ROW_FIELDS)[number]> extends never ? true : never = true;
void allFields;

/** The first screen as the page passes it to the inbox: its rows packed (`rows`), the rest as it is. */
export type PackedFirstScreen = Omit<InboxData, "approvals"> & { rows: unknown[][] };

export const packFirstScreen = ({ approvals, ...rest }: InboxData): PackedFirstScreen => ({
  ...rest,
  rows: approvals.map((a) => ROW_FIELDS.map((f) => a[f])),
});

export const unpackFirstScreen = ({ rows, ...rest }: PackedFirstScreen): InboxData => ({
  ...rest,
  approvals: rows.map((v) => Object.fromEntries(ROW_FIELDS.map((f, i) => [f, v[i]])) as InboxRowDto),
});
