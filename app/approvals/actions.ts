"use server";
// A decision (approve, reject, respond, answer a question) as a server action calling the same service as
// POST /api/approvals/{id}/decision: the run page's cards and the inbox's bulk decisions use it. A server
// action is a public endpoint: each call resolves the session again and the service checks the role,
// routing, separation of duties and the arguments hash, and audits the decision.
import { currentActor } from "@/lib/auth/server";
import { runAction } from "@/lib/http";
import { appContext } from "@/lib/context";
import { decide } from "@/lib/services/decide";
import { idArg } from "@/lib/validation";

export async function decideAction(approvalId: string, body: unknown) {
  return runAction(async () => decide(appContext(), await currentActor(), { approvalId: idArg("approvalId", approvalId), body }));
}
