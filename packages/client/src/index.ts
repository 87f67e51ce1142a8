// A typed client of the runtime protocol (v1) for external agent runtimes and this repo's adapters. Its
// types are generated from the OpenAPI document (openapi.ts), so a change of the protocol that the client
// does not follow fails the type check. Plain fetch: no next, react or prisma; it runs in any Node 20
// process (or a browser, a worker, Deno).
import type { components, operations } from "./openapi.ts";

type Schemas = components["schemas"];
type Body<Op extends keyof operations> = operations[Op] extends { requestBody?: { content: { "application/json": infer B } } } ? B : never;

export type RuntimeRun = Schemas["RuntimeRun"];
export type ParkedInterrupts = Schemas["ParkedInterrupts"];
export type RuntimeDecision = Schemas["RuntimeDecision"];
export type RuntimeDecisions = Schemas["RuntimeDecisions"];
export type RuntimeReport = Schemas["RuntimeReport"];
export type RegisterRunBody = Body<"registerRuntimeRun">;
export type ParkInterruptsBody = Body<"parkInterrupts">;
export type Interrupt = ParkInterruptsBody["interrupts"][number];
export type RuntimeEvent = Body<"reportRuntimeEvents">["events"][number];
export type StoredInterrupt = Schemas["StoredInterrupt"];
export type WithdrawnInterrupt = Schemas["WithdrawnInterrupt"];
export type ClaimOptions = {
  /** Who claims: an id made once (newClaimant) and kept with the runtime's own state. */
  claimant: string;
  /** Seconds the claim holds if the call's result is never reported (default 300): then another claimant may take it. */
  leaseS?: number;
};

/** How an adapter parks a tool call that needs approval. */
export type ParkOptions = {
  /** Why a person must look (shown in the inbox); per tool name or one for all. */
  message?: string | ((toolName: string) => string);
  groups?: string[];
  timeoutS?: number;
  /** JSON schemas of the tools' arguments, by tool name (shown to reviewers). */
  argsSchemas?: Record<string, Record<string, unknown>>;
};

/** How an adapter waits for, and claims, the decisions it applies. */
export type ResumeOptions = {
  waitS?: number;
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Who claims: the claimant kept with this copy of the runtime's state; default a new one for this call. */
  claimant?: string;
  /** Seconds each claim holds if the calls' results are never reported (default 300). */
  leaseS?: number;
};

/**
 * A tool call that the runtime can approve or reject (not run with edited arguments) as the interrupt to
 * park: its id, the call, and the message, schema, groups and deadline the options give.
 */
export function approveOrReject(
  id: string,
  call: { name: string; args: Record<string, unknown>; callId: string },
  opts: ParkOptions,
): Interrupt {
  return {
    id,
    action: call,
    message: typeof opts.message === "function" ? opts.message(call.name) : (opts.message ?? `${call.name} needs approval`),
    decisions: ["approve", "reject"],
    ...(opts.argsSchemas?.[call.name] ? { argsSchema: opts.argsSchemas[call.name] } : {}),
    ...(opts.groups ? { groups: opts.groups } : {}),
    ...(opts.timeoutS ? { timeoutS: opts.timeoutS } : {}),
  };
}

/** A 4xx/5xx answer: its status and JSON body ({error, field?, current?}). */
export class ProtocolError extends Error {
  readonly status: number;
  readonly body: Schemas["Error"];
  constructor(status: number, body: Schemas["Error"]) {
    // The field the console named (a schema path, an interrupt's property) stays in the message.
    super(`${status}: ${body.error}${body.field ? ` (field: ${body.field})` : ""}`);
    this.name = "ProtocolError";
    this.status = status;
    this.body = body;
  }
}

/**
 * A claim answered 409 because another claimant holds the decision: apply nothing (the holder applies it).
 * `decision` is the decision as it stands, its `claimant` the holder and `leaseUntil` until when it holds.
 */
export class ClaimedByAnotherError extends ProtocolError {
  readonly decision: RuntimeDecision;
  constructor(status: number, body: Schemas["Error"], decision: RuntimeDecision) {
    super(status, body);
    this.name = "ClaimedByAnotherError";
    this.decision = decision;
  }
}

/** A new claimant id: make it once per copy of the runtime's state and keep it with that state. */
export const newClaimant = (): string => `claimant-${globalThis.crypto.randomUUID()}`;

export type ClientOptions = {
  /** The console's base URL, e.g. http://localhost:3000 */
  baseUrl: string;
  /** A runtime token (an admin creates it with role runtime). */
  token: string;
  fetch?: typeof fetch;
};

export class RuntimeClient {
  private readonly opts: ClientOptions;
  private readonly base: string;
  private readonly fetcher: typeof fetch;

  constructor(opts: ClientOptions) {
    // Checked here, not at the first call: a JavaScript caller has no types to tell them the options' names.
    for (const name of ["baseUrl", "token"] as const)
      if (typeof opts?.[name] !== "string" || !opts[name]) throw new TypeError(`RuntimeClient: option ${name} is required (a string)`);
    this.opts = opts;
    this.base = opts.baseUrl.replace(/\/$/, "");
    this.fetcher = opts.fetch ?? fetch;
  }

  private async call<T>(method: "GET" | "POST", path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
    const res = await this.fetcher(`${this.base}${path}`, {
      method,
      headers: { authorization: `Bearer ${this.opts.token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal,
    });
    const json = (await res.json().catch(() => ({ error: `HTTP ${res.status}` }))) as unknown;
    if (!res.ok) throw new ProtocolError(res.status, json as Schemas["Error"]);
    return json as T;
  }

  private run(runId: string, rest = "") {
    return `/api/v1/runtime/runs/${encodeURIComponent(runId)}${rest}`;
  }

  /** Registers a run (idempotent by externalId: the same run comes back, created false). */
  registerRun(body: RegisterRunBody): Promise<RuntimeRun> {
    return this.call("POST", "/api/v1/runtime/runs", body);
  }

  getRun(runId: string): Promise<RuntimeRun> {
    return this.call("GET", this.run(runId));
  }

  /** Parks one step's interrupts (idempotent by each interrupt's id). */
  parkInterrupts(runId: string, body: ParkInterruptsBody): Promise<ParkedInterrupts> {
    return this.call("POST", this.run(runId, "/interrupts"), body);
  }

  /** Decisions after cursor; with waitS (≤ 50) the server holds the request until one comes. */
  decisions(runId: string, q: { cursor?: string | null; waitS?: number } = {}, signal?: AbortSignal): Promise<RuntimeDecisions> {
    const params = new URLSearchParams();
    if (q.cursor) params.set("cursor", q.cursor);
    if (q.waitS !== undefined) params.set("wait", String(q.waitS));
    const qs = params.toString();
    return this.call("GET", this.run(runId, `/decisions${qs ? `?${qs}` : ""}`), undefined, signal);
  }

  /**
   * Claims a decision to apply it, for a claimant: the decision when this claimant holds it (the first
   * claim, or this claimant's again after a restart). Throws ClaimedByAnotherError when another claimant
   * holds it (apply nothing), a ProtocolError (409) while it is not decided, and any other failure.
   */
  async claim(runId: string, interruptId: string, opts: ClaimOptions): Promise<RuntimeDecision> {
    try {
      const r = await this.call<Schemas["ClaimedDecision"]>(
        "POST",
        this.run(runId, `/interrupts/${encodeURIComponent(interruptId)}/claim`),
        { claimant: opts.claimant, ...(opts.leaseS ? { leaseS: opts.leaseS } : {}) },
      );
      return r.decision;
    } catch (e) {
      const current = e instanceof ProtocolError && e.status === 409 ? (e.body.current as RuntimeDecision | undefined) : undefined;
      if (e instanceof ProtocolError && current && typeof current === "object" && "decision" in current && "claimant" in current)
        throw new ClaimedByAnotherError(e.status, e.body, current);
      throw e;
    }
  }

  /**
   * Withdraws a pending interrupt whose request ended: it leaves every inbox and can no longer be decided.
   * One decided already is answered as it stands (withdrawn false).
   */
  withdraw(runId: string, interruptId: string, reason?: string, signal?: AbortSignal): Promise<WithdrawnInterrupt> {
    return this.call("POST", this.run(runId, `/interrupts/${encodeURIComponent(interruptId)}/withdraw`), reason ? { reason } : {}, signal);
  }

  report(runId: string, events: RuntimeEvent[]): Promise<RuntimeReport> {
    return this.call("POST", this.run(runId, "/events"), { events });
  }

  /**
   * Waits until every interrupt named has a decision (long-polls of waitS seconds, at most timeoutMs in
   * all), then returns them by interrupt id. The run ending first is an error naming its state.
   */
  async waitForDecisions(
    runId: string,
    interruptIds: string[],
    opts: { waitS?: number; timeoutMs?: number; signal?: AbortSignal } = {},
  ): Promise<Map<string, RuntimeDecision>> {
    const found = new Map<string, RuntimeDecision>();
    const until = Date.now() + (opts.timeoutMs ?? Number.POSITIVE_INFINITY);
    let cursor: string | null = null;
    for (;;) {
      const page: RuntimeDecisions = await this.decisions(runId, { cursor, waitS: opts.waitS ?? 30 }, opts.signal);
      for (const d of page.decisions) if (interruptIds.includes(d.interruptId)) found.set(d.interruptId, d);
      cursor = page.nextCursor;
      if (interruptIds.every((id) => found.has(id))) return found;
      if (["completed", "failed", "cancelled"].includes(page.state) && !page.decisions.length)
        throw new Error(`Run ${runId} is ${page.state}; ${interruptIds.length - found.size} interrupt(s) were never decided`);
      if (Date.now() > until) throw new Error(`No decision on ${interruptIds.filter((id) => !found.has(id)).join(", ")} in time`);
    }
  }
}
