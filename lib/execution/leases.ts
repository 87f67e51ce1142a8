// The heartbeat of the runs this process holds: every heartbeatMs (default a third of the lease) one
// statement renews the leases still held (same owner, same epoch). A run whose row no longer carries this
// claim was taken over: it is abandoned, never cancelled (a cancel would write a terminal record over the
// new owner's work). A cancel asked elsewhere shows as the row's flag. When the renewal itself fails for
// half a lease, every run is abandoned at its last durable checkpoint rather than racing a successor.
import type { Db } from "../db/client.ts";
import { log } from "../log.ts";
import { releaseLease, renewLeases } from "../db/runs.ts";

/** A claim this process holds on a run. */
export type Lease = {
  readonly runId: string;
  readonly epoch: number /** False once lost: never renewed or written for again. */;
  leased: boolean;
};

export type LeaseEvents<L extends Lease> = { lost(lease: L): void; cancelRequested(lease: L): void };

export class Heartbeat<L extends Lease> {
  private timer: NodeJS.Timeout | null = null;
  private lastRenewedMs = Date.now();

  constructor(
    private readonly db: Db,
    private readonly instanceId: string,
    private readonly leaseMs: number,
    private readonly intervalMs: number,
    /** The claims this process holds now (read at every beat). */
    private readonly held: () => Iterable<L>,
    private readonly on: LeaseEvents<L>,
  ) {}

  /** A claim was just taken: beat from now on (the clock of the last renewal starts now if nothing was held). */
  claimed(wasHolding: boolean) {
    if (!wasHolding) this.lastRenewedMs = Date.now();
    if (this.timer) return;
    this.timer = setInterval(() => void this.beat(), this.intervalMs);
    this.timer.unref();
  }

  stop() {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Hands runs back: their leases expire now, so another instance takes them over from their latest checkpoint. */
  async handBack(runIds: Iterable<string>) {
    for (const id of runIds) {
      await releaseLease(this.db, id, this.instanceId);
      log.info("run handed back", { run_id: id, instance: this.instanceId });
    }
  }

  private async beat() {
    const held = [...this.held()].filter((l) => l.leased);
    if (!held.length) return this.stop();
    const startedMs = Date.now();
    try {
      const rows = await renewLeases(
        this.db,
        held.map((l) => ({ id: l.runId, epoch: l.epoch })),
        this.instanceId,
        this.leaseMs,
      );
      this.lastRenewedMs = startedMs;
      const renewed = new Map(rows.map((r) => [r.id, r]));
      for (const l of held) {
        const row = renewed.get(l.runId);
        if (!row && l.leased) {
          log.error("lease lost; abandoning run", { run_id: l.runId, epoch: l.epoch, instance: this.instanceId });
          this.on.lost(l);
        } else if (row?.cancelRequested) this.on.cancelRequested(l);
      }
    } catch (e) {
      log.warn("lease heartbeat failed", { error: String(e).slice(0, 200), instance: this.instanceId });
      if (Date.now() - this.lastRenewedMs > this.leaseMs / 2) {
        for (const l of held) {
          log.error("lease not renewable; abandoning run", { run_id: l.runId, instance: this.instanceId });
          this.on.lost(l);
        }
      }
    }
  }
}
