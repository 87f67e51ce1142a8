// The invoke_agent span of each execution segment of a run this process executes: it begins when the
// worker claims the run, is the active span while the runner executes it (so chat, execute_tool and
// a tool's database spans nest under it), and ends when the run pauses or ends here. Its parent is the context the
// queue job carried (the request that reserved the run); a resumed segment links to the segment before it
// and to the requests that decided meanwhile (stored on the Run row). Approvals requested and decided are
// span events, the decided ones with how long they waited. Fed by the runner's events: nothing in the
// runner knows about it. A subagent's execution is an invoke_agent span of its own under the active span
// (its parent's segment), through the runner's aroundChild hook (traceSubagent).
import { type Context, context, createContextKey, type Span, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import { type AroundChild, type ApprovalRecord, RUN, type RunEvent } from "../runner/index.ts";
import { AFK, ERROR_TYPE, EVENT, GEN_AI, OPERATION, SPAN } from "./conventions.ts";
import { contextOfJob, type JobTrace, linksOf, parseRunTraceLinks, traceparentOf } from "./propagation.ts";
import { tracer } from "./sdk.ts";

export type SegmentStart = {
  runId: string;
  threadId: string;
  agent: string;
  epoch: number;
  instanceId: string;
  job: JobTrace | undefined;
  /** The Run row's traceContext column. */
  links: string | null;
  /** Approvals of the step the run paused at (a resumed segment), for their decisions' events. */
  decided: ApprovalRecord[];
};

/** A segment's own statements (lib/db/tracing.ts): counted with their time, the writes of records apart. */
export type StatementTally = { writes: StatementCount; others: StatementCount };
export type StatementCount = { n: number; ms: number };
const TALLY = createContextKey("afk.segment.statements");

/** The tally of the run segment ctx is in (undefined outside one, and in a tool's execution). */
export const segmentTally = (ctx: Context): StatementTally | undefined => ctx.getValue(TALLY) as StatementTally | undefined;

/** ctx without the segment's tally: a tool's statements are spans again. */
export const untallied = (ctx: Context): Context => (ctx.getValue(TALLY) ? ctx.deleteValue(TALLY) : ctx);

type Open = { span: Span; tally: StatementTally };

export class RunSegments {
  private readonly open = new Map<string, Open>();

  /** Starts the segment's span; run the runner inside the returned context. */
  begin(s: SegmentStart): Context {
    const parentCtx = contextOfJob(s.job);
    const links = linksOf(parseRunTraceLinks(s.links), trace.getSpanContext(parentCtx));
    const span = tracer().startSpan(
      SPAN.invokeAgent(s.agent),
      {
        kind: SpanKind.INTERNAL,
        links,
        attributes: {
          [GEN_AI.operationName]: OPERATION.invokeAgent,
          [GEN_AI.agentName]: s.agent,
          [GEN_AI.conversationId]: s.threadId,
          [AFK.runId]: s.runId,
          [AFK.epoch]: s.epoch,
          [AFK.instance]: s.instanceId,
          [AFK.resumed]: links.length > 0 || s.decided.length > 0,
          ...(s.job ? { [AFK.queueWaitMs]: Math.max(0, Date.now() - s.job.sentAtMs) } : {}),
        },
      },
      parentCtx,
    );
    for (const a of s.decided) {
      if (a.decided_at_ms === null) continue;
      span.addEvent(EVENT.approvalDecided, {
        [AFK.approvalId]: a.id,
        [AFK.approvalKind]: a.kind,
        [GEN_AI.toolName]: a.tool_name,
        [AFK.decision]: a.status,
        [AFK.waitS]: (a.decided_at_ms - a.requested_at_ms) / 1000,
      });
    }
    this.open.get(s.runId)?.span.end();
    const tally = { writes: { n: 0, ms: 0 }, others: { n: 0, ms: 0 } };
    this.open.set(s.runId, { span, tally });
    return trace.setSpan(parentCtx, span).setValue(TALLY, tally);
  }

  /** The runner's events of a run executing here (its subagents' events carry their own run ids). */
  event(e: RunEvent) {
    const span = this.open.get(e.runId)?.span ?? subagents.get(e.runId);
    if (!span) return;
    if (e.type === "tool_deferred")
      span.addEvent(EVENT.approvalRequested, {
        [AFK.approvalId]: String(e.data.approval_id),
        [GEN_AI.toolCallId]: String(e.data.tool_call_id),
        [AFK.approvalKind]: String(e.data.kind),
      });
    else if (e.type === "run_paused") span.addEvent(EVENT.paused, { [AFK.step]: e.step });
  }

  /**
   * Ends the segment: its outcome (state, or the error that stopped it) on the span. Returns the Run
   * row's new traceContext (this segment, no decisions yet), or undefined when no segment was open.
   */
  end(runId: string, outcome: Outcome): string | undefined {
    const open = this.open.get(runId);
    if (!open) return undefined;
    this.open.delete(runId);
    const { span, tally } = open;
    const ms = (x: number) => Math.round(x * 1000) / 1000;
    span.setAttributes({
      [AFK.untracedStatements]: tally.others.n,
      [AFK.untracedMs]: ms(tally.others.ms),
      [AFK.recordWrites]: tally.writes.n,
      [AFK.recordWriteMs]: ms(tally.writes.ms),
    });
    endWith(span, outcome);
    return JSON.stringify({ segment: traceparentOf(span.spanContext()) });
  }

  /** Runs fn in ctx (the runner's promise chain keeps it). */
  static within<T>(ctx: Context, fn: () => T): T {
    return context.with(ctx, fn);
  }
}

type Outcome = { state: string; step?: number; error?: unknown };

function endWith(span: Span, outcome: Outcome) {
  span.setAttribute(AFK.outcome, outcome.state);
  if (outcome.step !== undefined) span.setAttribute(AFK.step, outcome.step);
  if (outcome.error) {
    const e = outcome.error;
    // The class name only (a run's error text is "<Name>: <message>"): error.type must stay low-cardinality.
    span.setAttribute(ERROR_TYPE, e instanceof Error ? e.name : (/^([A-Za-z]*Error)\b/.exec(String(e))?.[1] ?? "_OTHER"));
    span.setStatus({ code: SpanStatusCode.ERROR, message: (e instanceof Error ? e.message : String(e)).slice(0, 500) });
  }
  span.end();
}

// The subagent runs executing in this process, by run id: their runner events (approvals requested, the
// pause) go on their own spans. A subagent's run id is unique (its parent's id and the delegating call).
const subagents = new Map<string, Span>();

/** The runner's aroundChild when tracing is on: the subagent's execution as invoke_agent {agent}, active while it runs. */
export const traceSubagent: AroundChild = (c, run) => {
  const span = tracer().startSpan(SPAN.invokeAgent(c.agent), {
    kind: SpanKind.INTERNAL,
    attributes: {
      [GEN_AI.operationName]: OPERATION.invokeAgent,
      [GEN_AI.agentName]: c.agent,
      [GEN_AI.conversationId]: c.threadId,
      [AFK.runId]: c.runId,
      [AFK.rootRunId]: c.rootRunId,
    },
  });
  subagents.set(c.runId, span);
  const done = (o: Outcome) => {
    subagents.delete(c.runId);
    endWith(span, o);
  };
  return context.with(trace.setSpan(context.active(), span), run).then(
    (r) => {
      done({ state: r.state, step: r.stateSnapshot.step, error: r.error });
      return r;
    },
    (e: unknown) => {
      done({ state: RUN.failed, error: e });
      throw e;
    },
  );
};
