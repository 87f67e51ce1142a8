// The agents a signed-in person can pick from: names for filters, and for starting a run each startable
// agent's input form (its JSON schema) and why it cannot run here, if it cannot.
import "server-only";
import type { Actor } from "../auth/actor.ts";
import type { AppContext } from "../context.ts";
import { type AgentsDto, toJsonSchemaDto } from "../dto.ts";
import { externalAgents } from "../db/runtime.ts";
import { authorize } from "./access.ts";

type Ctx = Pick<AppContext, "agents">;

export function agentNames(ctx: Ctx, actor: Actor | null): string[] {
  authorize(actor);
  return ctx.agents.all().map((a) => a.name);
}

/** What the inbox's and runs list's filters offer: this console's agents and external runtimes' ones, and their frameworks. */
export async function filterChoices(
  ctx: Pick<AppContext, "agents" | "db">,
  actor: Actor | null,
  own: string[] = agentNames(ctx, actor),
): Promise<{ agents: string[]; frameworks: string[] }> {
  const external = await externalAgents(ctx.db);
  return {
    agents: [...new Set([...own, ...external.map((e) => e.agent)])],
    frameworks: [...new Set(external.map((e) => e.framework).filter(Boolean))].sort(),
  };
}

export function agentCatalog(ctx: Ctx, actor: Actor | null): AgentsDto["agents"] {
  authorize(actor);
  return ctx.agents
    .startable()
    .filter((a) => a.inputSchema)
    .map((a) => ({
      name: a.name,
      description: a.description ?? "",
      model: a.model,
      inputSchema: toJsonSchemaDto(a.inputSchema!),
      unavailable: ctx.agents.unavailableReason(a),
    }));
}
