// What a fork would do again: the tool calls that succeeded in the source run after the fork point. A fork
// shares no effects with its source, so each of them runs again (after its own approval); the fork button
// names them and asks to confirm, and GET /api/runs/{id}/fork?seq=N answers the same to any other client.
import "server-only";
import type { Actor } from "../auth/actor.ts";
import { ConflictError } from "../auth/errors.ts";
import type { AppContext } from "../context.ts";
import { summarizeArgs } from "../display.ts";
import { toJsonSchemaDto } from "../dto.ts";
import { RunRewindError, effectsAfter } from "../runner/index.ts";
import { parseOr400 } from "../validation.ts";
import { authorize, visibleRun } from "./access.ts";
import { assertReadable } from "./run-view.ts";
import { forkPreviewQuerySchema } from "./schemas.ts";

export type RepeatedEffectView = { tool: string; toolCallId: string; summary: string };

export async function forkPreview(ctx: AppContext, actor: Actor | null, { runId, query }: { runId: string; query: unknown }) {
  const who = authorize(actor, "runs:operate");
  const run = await visibleRun(ctx, who, runId);
  const { seq } = parseOr400(forkPreviewQuerySchema, query);
  if (run.runtimeTokenId) throw new ConflictError("An external run is not forked here: its runtime executes it");
  await assertReadable(ctx, run);
  const tools = ctx.agents.toolsOf(run.agentName);
  const effects = await effectsAfter(ctx.store, run.threadId, run.id, seq).catch((e) => {
    if (e instanceof RunRewindError) throw new ConflictError(e.message);
    throw e;
  });
  const repeats: RepeatedEffectView[] = effects
    // A question's answer is a person's, not an effect: asking again is what a fork is for.
    .filter((e) => !tools.find((t) => t.name === e.tool_name)?.asksHuman)
    .map((e) => {
      const schema = tools.find((t) => t.name === e.tool_name)?.schema;
      return {
        tool: e.tool_name,
        toolCallId: e.tool_call_id,
        summary: summarizeArgs(e.args, schema ? toJsonSchemaDto(schema) : null, 200),
      };
    });
  return { runId: run.id, seq, repeats };
}
