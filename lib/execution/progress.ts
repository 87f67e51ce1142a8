// What the rest of the console sees of a run while this process executes it: the Run row's step and phase
// (coalesced, conditional on the claim), live messages (the run changed, the inbox changed, streamed text
// batched per run) and, when the run pauses, the pause webhook.
import type { Db } from "../db/client.ts";
import { log } from "../log.ts";
import type { LiveBus } from "../live/bus.ts";
import { RUN, type RunEvent } from "../runner/index.ts";
import { updateRunProgress } from "../db/runs.ts";
import { type WebhookConfig, notifyPaused } from "../webhooks/pause.ts";
import type { Notifier } from "../notify/dispatcher.ts";

// notify: the conversation grew since the last write (survives coalescing, unlike phase).
type RowPatch = { step?: number; phase?: string; notify?: boolean };
type Delta = { step: number; offset: number; text: string; timer: NodeJS.Timeout | null };

/** The progress part of a run this process executes (kept in the worker's one record per run). */
export type ProgressState = {
  /** The newest row update not yet written (null: nothing waits). Only the newest state matters. */
  patch: RowPatch | null;
  /** The one row write in flight for the run (null: none); it writes `patch` until none is left. */
  writing: Promise<void> | null;
  /** Streamed text of the current step not yet published, where it starts in that step's text, its timer. */
  delta: Delta | null;
  /** The step and phase this process last wrote to the row: an event that changes neither writes nothing. */
  written: { step?: number; phase?: string };
};

/** A run as progress sees it: its claim's epoch (row writes are conditional on it) and whether it still holds it. */
export type Tracked = { readonly runId: string; readonly epoch: number; readonly leased: boolean; readonly progress: ProgressState };

export const newProgress = (): ProgressState => ({ patch: null, writing: null, delta: null, written: {} });

// Whether a patch changes the row's step or phase (a patch without a phase leaves the phase as it is).
const changes = (written: ProgressState["written"], p: RowPatch) =>
  p.step !== written.step || (p.phase !== undefined && p.phase !== written.phase);

const CONVERSATION_PHASES = new Set(["post_llm", "post_tool_batch", "post_subagent_batch"]);

// Streamed text is published at most this often per run (one message carries every delta since).
const DELTA_FLUSH_MS = 50;

export class RunProgress {
  constructor(
    private readonly db: Db,
    private readonly live: LiveBus,
    private readonly webhook: WebhookConfig | null,
    private readonly notifier: Notifier | null = null,
  ) {}

  /** A runner event of a run executing here. Checkpoint events arrive many times a step: one row write at a time. */
  event(run: Tracked, e: RunEvent) {
    if (e.type === "llm_delta") return this.streamed(run.progress, run.runId, e.step, String(e.data.text ?? ""));
    const patch: RowPatch = { step: e.step };
    if (e.type === "checkpoint" && typeof e.data.phase === "string") {
      patch.phase = e.data.phase;
      if (CONVERSATION_PHASES.has(e.data.phase)) patch.notify = true;
    }
    const p = run.progress;
    const next = { ...p.patch, ...patch, notify: p.patch?.notify || patch.notify };
    // A write in flight writes it after; otherwise a write starts only when the row changes (most events
    // of a step repeat its step), and a notification with nothing to write goes out at once.
    if (p.writing || (run.leased && changes(p.written, next))) {
      p.patch = next;
      p.writing ??= this.drain(run);
    } else if (next.notify) this.notified(p, run.runId);
  }

  /** The run stopped executing: drop the row update not yet written (the outcome replaces it), finish the one in flight. */
  async settle(run: Tracked) {
    run.progress.patch = null;
    await run.progress.writing;
  }

  /** The run's outcome is on its row: pages refetch, the inbox too when it paused, and the webhook is called. */
  async stopped(runId: string, state: string, pendingApprovals: string[] = []) {
    this.live.publish({ topic: "run", runId, state });
    if (state !== RUN.paused) return;
    this.live.publish({ topic: "inbox" });
    if (this.notifier) void this.notifier.paused(runId);
    if (this.webhook) await notifyPaused(this.db, this.webhook, runId, pendingApprovals);
  }

  // Text a model streams, batched per run: one live message per DELTA_FLUSH_MS.
  private streamed(p: ProgressState, runId: string, step: number, text: string) {
    if (p.delta && p.delta.step !== step) this.flushDeltas(p, runId, true);
    p.delta ??= { step, offset: 0, text: "", timer: null };
    const d = p.delta;
    d.text += text;
    d.timer ??= setTimeout(() => this.flushDeltas(p, runId), DELTA_FLUSH_MS);
  }

  private flushDeltas(p: ProgressState, runId: string, done = false) {
    const d = p.delta;
    if (!d) return;
    if (d.timer) clearTimeout(d.timer);
    d.timer = null;
    if (d.text) this.live.publish({ topic: "delta", runId, step: d.step, offset: d.offset, text: d.text });
    d.offset += d.text.length;
    d.text = "";
    if (done) p.delta = null;
  }

  // The conversation grew (a response, tool results): pages showing the run refetch, and drop the
  // streamed text once the response is in the snapshot. Other phases change nothing they show.
  private notified(p: ProgressState, runId: string) {
    this.flushDeltas(p, runId, true);
    this.live.publish({ topic: "run", runId });
  }

  private async drain(run: Tracked) {
    const p = run.progress;
    try {
      for (let next = p.patch; next; next = p.patch) {
        p.patch = null;
        // A run whose lease was lost writes nothing more (its successor owns the row).
        if (run.leased && changes(p.written, next)) {
          await updateRunProgress(this.db, run.runId, run.epoch, { step: next.step, phase: next.phase });
          p.written = { step: next.step, phase: next.phase ?? p.written.phase };
        }
        if (next.notify) this.notified(p, run.runId);
      }
    } catch (e) {
      log.warn("run row update failed", { run_id: run.runId, error: String(e) });
    } finally {
      p.writing = null;
    }
  }
}
