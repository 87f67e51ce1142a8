// The public API: Runner.run / runHandle / resume / retry.
import { randomUUID } from "node:crypto";
import { type Agent, agentFingerprint } from "./agent.ts";
import { AgentMismatchError } from "./errors.ts";
import { EventChannel, type RunEvent } from "./events.ts";
import { DEFAULT_RUNNER_CONFIG, type ExecutionInit, type RunnerConfig, type RunnerContext } from "./config.ts";
import { RunExecution } from "./execution.ts";
import type { ModelAdapter } from "./model.ts";
import type { AgentResult } from "./result.ts";
import { loadLatestCheckpoint, terminalResultOf } from "./resume.ts";
import { loadSnapshot } from "./runtime-snapshot.ts";
import { listApprovals } from "./approvals.ts";
import { validateEffects } from "./effects.ts";
import { listStored, readAll } from "./read.ts";
import { type MemoryStore, checkpointLatestKey, keys } from "./store.ts";
import { readCheckpoints } from "./checkpoint.ts";

export { DEFAULT_RUNNER_CONFIG, type RunnerConfig, type RunnerContext } from "./config.ts";

/**
 * store: this execution's own view of the store (e.g. one fenced by the claim's lease epoch); every read
 * and write of the run and its subagents goes through it. Defaults to the runner's store.
 */
export type RunOptions = { userMessage: string; context?: Record<string, unknown>; threadId?: string; runId?: string; store?: MemoryStore };
/** Which run to resume; `store` as in RunOptions. */
export type ResumeOptions = { runId: string; threadId: string; context?: Record<string, unknown>; store?: MemoryStore };

/** A run in progress: its ids, its event stream, cancel/abandon, and its result. */
export type RunHandle = {
  runId: string;
  threadId: string;
  events: AsyncIterable<RunEvent>;
  cancel(): void;
  /**
   * Stop without writing anything more (this execution lost its claim on the run): awaitResult rejects
   * with LeaseLostError. Unlike cancel, no terminal record is written.
   */
  abandon(): void;
  awaitResult(): Promise<AgentResult>;
};

/**
 * Runs agents step by step with a checkpoint at each phase boundary (checkpoint-schema.md) and resumes them from the latest one. Plain
 * TypeScript over a MemoryStore; no I/O of its own besides the store and the models.
 */
export class Runner {
  readonly config: RunnerConfig;
  private readonly ctx: RunnerContext;

  constructor(
    readonly store: MemoryStore,
    readonly models: Record<string, ModelAdapter>,
    config: Partial<RunnerConfig> = {},
    private readonly onEvent?: (e: RunEvent) => void,
  ) {
    this.config = { ...DEFAULT_RUNNER_CONFIG, ...config };
    this.ctx = this.contextWith(store);
  }

  private contextWith(store: MemoryStore): RunnerContext {
    if (store === this.ctx?.store) return this.ctx;
    const ctx: RunnerContext = {
      store,
      models: this.models,
      config: this.config,
      runChild: (agent, init) => {
        const run = () => this.runOrResumeChild(ctx, agent, init);
        const around = this.config.aroundChild;
        if (!around) return run();
        const { runId, threadId, rootRunId, depth } = init;
        return around({ agent: agent.name, runId, threadId, rootRunId, depth }, run);
      },
    };
    return ctx;
  }

  /** Runs an agent from its first step until it pauses or ends; resolves with its result. */
  run(agent: Agent, opts: RunOptions): Promise<AgentResult> {
    return this.runHandle(agent, opts).awaitResult();
  }

  /** Starts a run and returns its handle at once (events stream while it runs). */
  runHandle(agent: Agent, opts: RunOptions): RunHandle {
    const runId = opts.runId ?? randomUUID();
    const threadId = opts.threadId ?? runId;
    return this.handle(this.contextWith(opts.store ?? this.store), {
      agent,
      runId,
      threadId,
      depth: 0,
      agentPath: agent.name,
      rootRunId: runId,
      userMessage: opts.userMessage,
      context: opts.context ?? {},
    });
  }

  /** Resumes a run from its latest checkpoint (see resumeHandle) and resolves with its result. */
  async resume(agent: Agent, opts: ResumeOptions): Promise<AgentResult> {
    return (await this.resumeHandle(agent, opts)).awaitResult();
  }

  /**
   * Loads the latest checkpoint: a terminal one returns its stored result with no re-execution; otherwise
   * the runtime snapshot restores the run, and a stored pending LLM response is processed, not re-asked.
   */
  async resumeHandle(agent: Agent, opts: ResumeOptions): Promise<RunHandle> {
    return this.resumeIn(this.contextWith(opts.store ?? this.store), agent, opts);
  }

  private async resumeIn(ctx: RunnerContext, agent: Agent, opts: ResumeOptions): Promise<RunHandle> {
    const store = ctx.store;
    const latest = await loadLatestCheckpoint(store, opts.threadId, opts.runId);
    const terminal = terminalResultOf(latest);
    if (terminal) return resolvedHandle(terminal);
    // Everything resume may read later is validated now, so an unreadable record stops it before any
    // write or model call.
    const [loaded, , , startedPayload] = await readAll([
      loadSnapshot(store, opts.threadId, opts.runId),
      listApprovals(store, opts.threadId, opts.runId),
      validateEffects(store, opts.threadId, opts.runId, latest.step),
      runStartedPayload(store, opts.threadId, opts.runId),
    ]);
    const started = startedPayload ?? {};
    checkAgent(agent, loaded.snapshot.agent_name, typeof started.agent_fingerprint === "string" ? started.agent_fingerprint : null);
    return this.handle(ctx, {
      agent,
      runId: opts.runId,
      threadId: opts.threadId,
      depth: String(started.agent_path ?? agent.name).split("/").length - 1,
      agentPath: String(started.agent_path ?? agent.name),
      rootRunId: String(started.root_run_id ?? opts.runId),
      context: opts.context ?? {},
      restored: {
        scalars: loaded.snapshot,
        pending: loaded.pending,
        messages: loaded.messages,
        toolExecutions: loaded.toolExecutions,
        subagentExecutions: loaded.subagentExecutions,
        latest,
      },
    });
  }

  private async runOrResumeChild(
    ctx: RunnerContext,
    agent: Agent,
    init: Omit<ExecutionInit, "agent" | "restored"> & { userMessage: string },
  ): Promise<AgentResult> {
    const existing = await ctx.store.getState(init.threadId, checkpointLatestKey(init.runId));
    if (existing === undefined) return this.handle(ctx, { ...init, agent }).awaitResult();
    return (await this.resumeIn(ctx, agent, { runId: init.runId, threadId: init.threadId })).awaitResult();
  }

  private handle(ctx: RunnerContext, init: ExecutionInit): RunHandle {
    const channel = new EventChannel();
    const exec = new RunExecution(ctx, init, (e) => {
      channel.push(e);
      this.onEvent?.(e);
    });
    const result = exec.execute().finally(() => channel.close());
    result.catch(() => undefined);
    return {
      runId: init.runId,
      threadId: init.threadId,
      events: channel,
      cancel: () => exec.cancel(),
      abandon: () => exec.abandon(),
      awaitResult: () => result,
    };
  }
}

// The first run_started record (step 0) says which agent, at which path, started the run.
async function runStartedPayload(store: MemoryStore, threadId: string, runId: string): Promise<Record<string, unknown> | null> {
  const entries = await listStored(store, threadId, `${keys.checkpointPrefix(runId)}000000:`, "checkpoint record");
  const first = entries.findIndex((e) => e.key.endsWith(":run_started"));
  if (first < 0) return null;
  // Stored whole (the first record of its window), else with the records of step 0 before it.
  const record = readCheckpoints(entries.slice(0, first + 1))[first];
  if (record instanceof Error) throw record;
  return record.payload;
}

function checkAgent(agent: Agent, storedName: string, storedFingerprint: string | null) {
  if (agent.name !== storedName) throw new AgentMismatchError(`Run was started by agent ${storedName}, not ${agent.name}`);
  if (storedFingerprint && storedFingerprint !== agentFingerprint(agent)) {
    throw new AgentMismatchError(`Agent ${agent.name} has changed its tools or subagents since the run started`);
  }
}

function resolvedHandle(result: AgentResult): RunHandle {
  const channel = new EventChannel();
  channel.close();
  return {
    runId: result.runId,
    threadId: result.threadId,
    events: channel,
    cancel: () => undefined,
    abandon: () => undefined,
    awaitResult: () => Promise.resolve(result),
  };
}
