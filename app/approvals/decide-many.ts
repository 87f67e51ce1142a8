// Decides several approvals one by one through the same action as a single decision: each is validated,
// decided and audited on its own, so one that fails (decided meanwhile, edited, expired) stops nothing
// else and is named in the result.
import { fromAction } from "@/components/api";
import { decideAction } from "./actions";
import type { InboxRowDto } from "@/lib/dto";

// closed: those the decision ended (a quorum's first vote leaves its request waiting for the others).
export type ManyResult = { decided: string[]; closed: string[]; failed: { id: string; tool: string; message: string }[] };

export async function decideMany(items: InboxRowDto[], decision: "approve" | "reject", reason?: string): Promise<ManyResult> {
  const out: ManyResult = { decided: [], closed: [], failed: [] };
  for (const a of items) {
    try {
      const { approval } = await fromAction(
        decideAction(a.id, { decision, argsHash: a.argsHash, ...(decision === "reject" ? { reason } : {}) }),
      );
      out.decided.push(a.id);
      if (approval.status !== "pending") out.closed.push(a.id);
    } catch (e) {
      out.failed.push({ id: a.id, tool: a.tool, message: e instanceof Error ? e.message : String(e) });
    }
  }
  return out;
}
