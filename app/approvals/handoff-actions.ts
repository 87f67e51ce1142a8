"use server";
// Hand-offs from the approval card (components/approval-handoff.tsx) as server actions calling the same
// services as POST /api/approvals/{id}/reassign and /comments: each call resolves the session again, and the
// service checks the role, who may decide the request, and audits.
import { currentActor } from "@/lib/auth/server";
import { runAction } from "@/lib/http";
import { appContext } from "@/lib/context";
import { postComment, reassign } from "@/lib/services/handoffs";
import { idArg } from "@/lib/validation";

export async function reassignAction(approvalId: string, body: unknown) {
  return runAction(async () => reassign(appContext(), await currentActor(), { approvalId: idArg("approvalId", approvalId), body }));
}

export async function commentAction(approvalId: string, body: unknown) {
  return runAction(async () => postComment(appContext(), await currentActor(), { approvalId: idArg("approvalId", approvalId), body }));
}
