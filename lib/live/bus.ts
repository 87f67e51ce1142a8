// Live updates between the parts of the console: a run moved, a model is streaming text, the inbox
// changed, a job waits, a run is to be cancelled, someone's access changed. In one process an in-memory emitter carries them; on
// PostgreSQL every process also LISTENs on one channel and publishes with pg_notify, so a reviewer's
// browser connected to instance A sees the text a worker process B is streaming, and a worker wakes
// the moment a job is queued instead of at its next poll. Messages are hints, never the data: whoever
// receives one reads the database (or shows the text it carries). A lost message costs latency only:
// browsers keep a slow poll and workers keep theirs.
import { EventEmitter } from "node:events";
import { randomBytes } from "node:crypto";
import pg from "pg";
import { z } from "zod";
import { log } from "../log.ts";

export const liveMessageSchema = z.discriminatedUnion("topic", [
  // A run's row or records changed (a checkpoint, a state): pages showing it refetch.
  z.object({ topic: z.literal("run"), runId: z.string().max(200), state: z.string().max(40).optional() }),
  // Text a model is streaming in a run's step; offset is where it starts in that step's text so far.
  z.object({
    topic: z.literal("delta"),
    runId: z.string().max(200),
    step: z.number().int(),
    offset: z.number().int().min(0),
    text: z.string().max(8000),
  }),
  // Pending approvals were created or decided.
  z.object({ topic: z.literal("inbox") }),
  // A run job was queued: idle workers fetch now.
  z.object({ topic: z.literal("work") }),
  // Stop this run wherever it executes.
  z.object({ topic: z.literal("cancel"), runId: z.string().max(200) }),
  // Someone's access changed (a token revoked; a user disabled, signed out everywhere, given another role
  // or other groups): their open event streams check it again at once (lib/services/live-events.ts).
  // actorId is the actor's id as streams know it: a user's id, or "token:<id>" for a service token.
  z.object({ topic: z.literal("access"), actorId: z.string().max(200) }),
]);
export type LiveMessage = z.infer<typeof liveMessageSchema>;

const envelopeSchema = z.object({ v: z.literal("v1"), origin: z.string(), m: liveMessageSchema });

export const LIVE_CHANNEL = "afk_live";
// pg_notify's payload limit is 8000 bytes; deltas are split well below it.
const MAX_TEXT = 3000;
// How long streamed text waits to go to other processes with what follows it.
const DELTA_MS = 50;

type Listener = (m: LiveMessage) => void;

/** What a model streamed so far in a run's current step, kept by every process that hears the deltas. */
export type LiveText = { step: number; text: string };

export class LiveBus {
  private readonly emitter = new EventEmitter().setMaxListeners(0);
  private readonly texts = new Map<string, LiveText>();
  protected readonly origin = randomBytes(6).toString("hex");

  /** Delivers to this process's listeners (and, on PostgreSQL, to every other process's). */
  publish(m: LiveMessage): void {
    if (m.topic === "delta" && m.text.length > MAX_TEXT) {
      for (let i = 0; i < m.text.length; i += MAX_TEXT) this.send({ ...m, offset: m.offset + i, text: m.text.slice(i, i + MAX_TEXT) });
    } else this.send(m);
  }

  /** One message small enough to go out as it is. */
  protected send(m: LiveMessage): void {
    this.deliver(m);
  }

  subscribe(fn: Listener): () => void {
    this.emitter.on("m", fn);
    return () => this.emitter.off("m", fn);
  }

  /** The text streamed so far in the run's current step, if a model is streaming (for late subscribers). */
  liveText(runId: string): LiveText | null {
    return this.texts.get(runId) ?? null;
  }

  async close(): Promise<void> {
    this.emitter.removeAllListeners();
  }

  protected deliver(m: LiveMessage) {
    if (m.topic === "delta") {
      const t = this.texts.get(m.runId);
      if (!t || t.step !== m.step || m.offset === 0) this.texts.set(m.runId, { step: m.step, text: m.text });
      else if (m.offset === t.text.length) t.text += m.text;
      if (this.texts.size > 10_000) this.texts.delete(this.texts.keys().next().value!);
    } else if (m.topic === "run") this.texts.delete(m.runId);
    try {
      this.emitter.emit("m", m);
    } catch (e) {
      log.warn("live listener failed", { error: String(e) });
    }
  }
}

/**
 * LISTEN on a dedicated connection (it reconnects with backoff; while it is down, browsers fall back to
 * polling); publish with pg_notify through a pool. Own messages are delivered locally at once and
 * skipped when they come back.
 */
export class PgLiveBus extends LiveBus {
  private client: pg.Client | null = null;
  private closed = false;
  private readonly pool: pg.Pool;
  private sending: Promise<void> = Promise.resolve();
  readonly ready: Promise<void>;

  constructor(private readonly url: string) {
    super();
    this.pool = new pg.Pool({ connectionString: url, max: 1 });
    this.pool.on("error", (e) => log.warn("live publish connection failed", { error: String(e) }));
    this.ready = this.connect(200);
  }

  /** Deltas waiting to go out, per run: a model streams word by word, other processes get them in bunches. */
  private readonly buffered = new Map<string, Extract<LiveMessage, { topic: "delta" }>>();
  private flushTimer: NodeJS.Timeout | null = null;

  protected override send(m: LiveMessage): void {
    this.deliver(m);
    if (m.topic === "delta") {
      this.buffer(m);
      return;
    }
    // Anything else may make the text stale (a run change) or be about it: the text goes out first.
    this.flushDeltas();
    this.notify(m);
  }

  // A model streams word by word: one NOTIFY per word would cost a round trip here and a parse in every
  // other process per word. Coalesced for DELTA_MS, text stays live and goes out in a few messages.
  private buffer(m: Extract<LiveMessage, { topic: "delta" }>) {
    const b = this.buffered.get(m.runId);
    if (b && b.step === m.step && b.offset + b.text.length === m.offset && b.text.length + m.text.length <= MAX_TEXT) b.text += m.text;
    else {
      if (b) this.notify(b);
      this.buffered.set(m.runId, { ...m });
    }
    this.flushTimer ??= setTimeout(() => this.flushDeltas(), DELTA_MS);
  }

  private flushDeltas() {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = null;
    for (const b of this.buffered.values()) this.notify(b);
    this.buffered.clear();
  }

  private notify(m: LiveMessage): void {
    const payload = JSON.stringify({ v: "v1", origin: this.origin, m });
    // In order, one after the other: the pieces of a long delta must arrive in the order they were cut.
    this.sending = this.sending.then(() =>
      this.pool.query("SELECT pg_notify($1, $2)", [LIVE_CHANNEL, payload]).then(
        () => {},
        (e) => {
          if (!this.closed) log.warn("live publish failed", { topic: m.topic, error: String(e).slice(0, 200) });
        },
      ),
    );
  }

  private async connect(delayMs: number): Promise<void> {
    if (this.closed) return;
    const client = new pg.Client({ connectionString: this.url });
    client.on("notification", (n) => this.received(n.payload));
    client.on("error", (e) => {
      if (this.closed || this.client !== client) return;
      log.warn("live listener lost its connection; reconnecting", { error: String(e).slice(0, 200) });
      this.client = null;
      void client.end().catch(() => {});
      setTimeout(() => void this.connect(200), delayMs).unref();
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${LIVE_CHANNEL}`);
      this.client = client;
    } catch (e) {
      void client.end().catch(() => {});
      if (this.closed) return;
      log.warn("live listener could not connect; retrying", { error: String(e).slice(0, 200), retry_ms: delayMs });
      await new Promise((r) => setTimeout(r, delayMs).unref());
      return this.connect(Math.min(delayMs * 2, 5000));
    }
  }

  private received(payload: string | undefined) {
    let parsed: z.infer<typeof envelopeSchema>;
    try {
      parsed = envelopeSchema.parse(JSON.parse(payload ?? ""));
    } catch {
      log.warn("live message ignored: not a message of this version", { bytes: payload?.length ?? 0 });
      return;
    }
    if (parsed.origin !== this.origin) this.deliver(parsed.m);
  }

  override async close(): Promise<void> {
    this.flushDeltas();
    this.closed = true;
    await this.sending;
    await super.close();
    await this.client?.end().catch(() => {});
    await this.pool.end().catch(() => {});
  }
}
