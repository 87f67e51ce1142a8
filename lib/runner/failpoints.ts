// Named failpoints (as DBOS names its debug points): the places where a test or the CLI makes an
// execution die (SIGKILL) or throw, to prove what survives. The registry is the list of names; an
// execution only consults the failpoints its RunnerConfig carries, so nothing is read from the process
// environment here (lib/env.ts parses AFK_FAILPOINT and the composition root hands it over).
import { PHASES } from "./checkpoint.ts";
import { AgentRunnerError } from "./errors.ts";

export const FAILPOINTS = [
  // Right after the checkpoint of that phase is durable (the writer is flushed first).
  ...PHASES,
  // After a tool returned and before its effect is written: the window in which a crash re-executes the
  // tool on resume, which only its idempotency key can absorb.
  "tool_executed",
] as const;

export type FailpointName = (typeof FAILPOINTS)[number];

/** One armed failpoint: where, optionally only at one step or in one agent, and what happens. */
export type Failpoint = { at: FailpointName; step?: number; agent?: string; action: "kill" | "throw" };

/** Thrown by a failpoint armed with action "throw". */
export class FailpointError extends AgentRunnerError {}

/** An AFK_FAILPOINT value that names no failpoint or action. */
export class FailpointSpecError extends Error {}

/** Parses `name[@agent][:step][:kill|throw]`, e.g. `post_llm:2:kill` or `tool_executed@refund-desk::throw`. */
export function parseFailpoint(spec: string | undefined): Failpoint | undefined {
  if (!spec) return undefined;
  const [nameAgent, step, action = "kill"] = spec.split(":");
  const [name, agent] = nameAgent.split("@");
  if (!(FAILPOINTS as readonly string[]).includes(name)) throw new FailpointSpecError(`unknown failpoint ${JSON.stringify(name)}`);
  if (action !== "kill" && action !== "throw")
    throw new FailpointSpecError(`failpoint action must be kill or throw, not ${JSON.stringify(action)}`);
  if (step && !/^\d+$/.test(step)) throw new FailpointSpecError(`failpoint step must be a number, not ${JSON.stringify(step)}`);
  return { at: name as FailpointName, step: step ? Number(step) : undefined, agent: agent || undefined, action };
}

/** True when `fp` is armed for this point, step and agent. */
export function failpointArmed(fp: Failpoint | undefined, at: FailpointName, step: number, agent: string): fp is Failpoint {
  return !!fp && fp.at === at && (fp.step === undefined || fp.step === step) && (fp.agent === undefined || fp.agent === agent);
}

/** Fires an armed failpoint: SIGKILL this process, or throw FailpointError. */
export function fire(fp: Failpoint, step: number): never {
  if (fp.action === "kill") process.kill(process.pid, "SIGKILL");
  throw new FailpointError(`failpoint ${fp.at}:${step}`);
}
