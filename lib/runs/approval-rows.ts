// Every reviewer's browser polls the inbox, and the same rows are read on each poll (a 304 needs them for
// its ETag): a row's stored text is read once per process, and the result kept frozen, so no reader can
// change what the next one gets. Keyed by the text itself: a row that changes is a new entry; bounded.
// No database here: lib/db/read-models.ts reads the rows and takes this as its reader.
import { type ApprovalReader, readAll, type UnreadableRow } from "../db/read-models.ts";
import { type ApprovalRecord, parseApproval } from "../runner/index.ts";

type Read = { ok: ApprovalRecord[]; bad: UnreadableRow[] };
type StoredRow = { key: string; value: string; runId: string | null };

const readRows = new Map<string, Read>();

function readApprovalRow(r: StoredRow): Read {
  const id = `${r.key}\0${r.runId}\0${r.value}`;
  let read = readRows.get(id);
  if (!read) {
    read = deepFreeze(readAll([r], parseApproval));
    if (readRows.size >= 4096) readRows.clear();
    readRows.set(id, read);
  }
  return read;
}

function deepFreeze<T>(v: T): T {
  if (v && typeof v === "object" && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const x of Object.values(v)) deepFreeze(x);
  }
  return v;
}

/** The cached reader, in the shape pendingApprovalPage takes. */
export const cachedApprovalReader: ApprovalReader = (rows) => {
  const read = rows.map(readApprovalRow);
  return { ok: read.flatMap((x) => x.ok), bad: read.flatMap((x) => x.bad) };
};

export function readPendingApprovals(
  rows: StoredRow[],
  opts: { agent?: string; tool?: string } = {},
): { approvals: ApprovalRecord[]; corrupt: UnreadableRow[] } {
  const { ok, bad } = cachedApprovalReader(rows);
  return {
    approvals: ok.filter((a) => (!opts.agent || a.agent_name === opts.agent) && (!opts.tool || a.tool_name === opts.tool)),
    corrupt: bad,
  };
}
