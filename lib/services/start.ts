// Starting a run: the agent's input checked against its schema, the Run row and its audit entry written in
// one transaction, then the run handed to the executor.
import "server-only";
import { randomUUID } from "node:crypto";
import type { z } from "zod";
import type { Actor } from "../auth/actor.ts";
import { ConflictError, ValidationError } from "../auth/errors.ts";
import type { AppContext } from "../context.ts";
import { appendAudit } from "../db/audit.ts";
import { transaction } from "../db/client.ts";
import { isUniqueViolation } from "../db/errors.ts";
import { createRunRow, runByIdempotencyKey } from "../db/runs.ts";
import { parseOr400 } from "../validation.ts";
import { authorize } from "./access.ts";
import { idempotencyKeySchema, startRunSchema } from "./schemas.ts";

// zod's own messages ("Invalid input: expected string, received undefined") in words; an agent's own
// messages ("Give a reason") as written.
function inWords(issue: z.core.$ZodIssue): string {
  const own = !/^(Invalid|Too small|Too big|Unrecognized key)/.test(issue.message);
  if (own) return issue.message;
  if (issue.code === "invalid_type")
    return /received undefined$/.test(issue.message)
      ? "Required"
      : `Expected ${({ string: "text", number: "a number", int: "a whole number", boolean: "yes or no" } as Record<string, string>)[issue.expected] ?? issue.expected}`;
  if (issue.code === "invalid_value") return `Choose one of ${issue.values.map(String).join(", ")}`;
  if (issue.code === "unrecognized_keys") return "Not a field of this agent's input";
  if (issue.code === "too_small") {
    if (issue.origin === "string") return Number(issue.minimum) <= 1 ? "Required" : `At least ${issue.minimum} characters`;
    return `${issue.inclusive === false ? "More than" : "At least"} ${issue.minimum}`;
  }
  if (issue.code === "too_big") {
    if (issue.origin === "string") return `At most ${issue.maximum} characters`;
    return `${issue.inclusive === false ? "Less than" : "At most"} ${issue.maximum}`;
  }
  return issue.message;
}

export type StartInput = {
  /** { agent, input } as the client sent it. */
  body: unknown;
  /** The Idempotency-Key header (or a form's own key). */
  idempotencyKey?: string | null;
};

// With an Idempotency-Key, a retried start (the client lost the first answer) returns the first run
// instead of starting a second; the key is scoped to the caller, and reusing it for a different request
// is a 409.
export async function startRun(ctx: AppContext, actor: Actor | null, { body, idempotencyKey = null }: StartInput) {
  const { db, executor: ex } = ctx;
  const who = authorize(actor, "runs:start");
  let key: string | null = null;
  if (idempotencyKey != null) {
    const k = idempotencyKeySchema.safeParse(idempotencyKey);
    if (!k.success) throw new ValidationError("Idempotency-Key", k.error.issues[0].message);
    key = `${who.id}:${k.data}`;
  }
  const { agent: name, input } = parseOr400(startRunSchema, body);
  const agent = ctx.agents.topLevelAgent(name);
  if (!agent?.inputSchema) throw new ValidationError("agent", `Unknown agent ${name}`);
  const unavailable = ctx.agents.unavailableReason(agent);
  if (unavailable) throw new ValidationError("agent", `${name} cannot run here: ${unavailable}`);
  const parsed = agent.inputSchema.strict().safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue.path.length
      ? issue.path.join(".")
      : issue.code === "unrecognized_keys"
        ? String((issue as { keys?: string[] }).keys?.[0])
        : "";
    throw new ValidationError(field ? `input.${field}` : "input", inWords(issue));
  }
  const replay = async () => {
    const prior = key ? await runByIdempotencyKey(db, key) : null;
    if (!prior) return null;
    if (prior.agentName !== name || prior.input !== JSON.stringify(parsed.data))
      throw new ConflictError("Idempotency-Key was already used for a different request");
    return { id: prior.id, replayed: true };
  };
  const earlier = await replay();
  if (earlier) return earlier;
  const id = randomUUID();
  try {
    await transaction(db, async (tx) => {
      await createRunRow(tx, {
        id,
        agentName: name,
        input: parsed.data,
        submittedById: who.id,
        submittedByEmail: who.email,
        idempotencyKey: key,
      });
      await appendAudit(tx, {
        actor: who,
        action: "run.start",
        targetType: "run",
        targetId: id,
        data: { agent: name, input: parsed.data },
      });
    });
  } catch (e) {
    // Two retries of one request raced: the other one created the run.
    const raced = isUniqueViolation(e) ? await replay() : null;
    if (raced) return raced;
    throw e;
  }
  await ex.start(id);
  return { id, replayed: false };
}
