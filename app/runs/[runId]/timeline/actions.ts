"use server";
import { redirect } from "next/navigation";
import { db } from "@/lib/db/client";
import { currentActor } from "@/lib/auth/server";
import { executor } from "@/lib/runs/instance";
import { forkRun } from "@/lib/runs/service";

export async function forkAction(runId: string, seq: number) {
  const { id } = await forkRun(db(), executor(), await currentActor(), runId, { seq });
  redirect(`/runs/${encodeURIComponent(id)}`);
}
