// The notification dispatcher. Planning turns committed pending requests into outbox rows (one per request,
// recipient, channel, kind and sequence number; the unique key makes planning by any number of instances,
// any number of times, write each row once). Sending claims what is due for one person on one channel in
// one UPDATE (so one instance sends it), sends it as one message (a digest when several are due) and
// records the outcome; a failure is retried with backoff and never reaches the run or the decision.
// One file: planning (requests, hand-offs, comments) and sending share one Notifier's channels and its pass.
import { createHash } from "node:crypto";
import type { Db } from "../db/client.ts";
import { appendAudit } from "../db/audit.ts";
import {
  type NotificationRow,
  type PlannedNotification,
  activeUsers,
  alreadySent,
  claimDue,
  dueRecipients,
  lastSentTo,
  nameOfEmail,
  planNotifications,
  preferencesOf,
  recipientOf,
  sentRefsOf,
  settleClaimed,
  skipPendingOf,
} from "../db/notifications.ts";
import { getRunRow } from "../db/runs.ts";
import { log } from "../log.ts";
import { notificationFirst, notificationSent } from "../metrics.ts";
import type { Agent, MemoryStore, Tool } from "../runner/index.ts";
import { type ApprovalRecord, approvalReads } from "./approvals.ts";
import type { Channel, Delivery, Notice, Outcome } from "./channel.ts";
import { noticeOf } from "./notice.ts";
import { type Handoffs, handoffDelivery, loadHandoffs } from "./handoff-plan.ts";
import { type Candidate, escalationTargets, recipientsOf } from "./recipients.ts";
import { type NotifyRule, afterQuietHours, dueFor, followUps, readPreference } from "./schedule.ts";

/** What the dispatcher needs of the agent registry. */
export type AgentLookup = { find(name: string): Agent | undefined; toolsOf(name: string): readonly Pick<Tool, "name" | "schema">[] };

export type NotifierOptions = {
  /** The console's address, for links to cards. */
  baseUrl: string;
  /** Least time between two messages to one person on one channel; what comes between goes in one digest. */
  burstMs?: number;
  /** How often due messages are looked for (and, every planEveryMs, requests a crash left unplanned). */
  pollMs?: number;
  planEveryMs?: number;
  /** How long a claim holds its rows: past it, another instance may send them. */
  claimMs?: number;
  /** After a request is planned, wait this long for others (a burst becomes one digest). */
  gatherMs?: number;
  maxAttempts?: number;
  backoffMs?: number;
};

const KIND_RANK: Record<string, number> = { escalation: 1e6, reassigned: 1e5, comment: 1e4, reminder: 0, request: 0 };

const KIND_ACTIONS: Record<string, string> = { reminder: "approval.reminded", escalation: "approval.escalated" };

export class Notifier {
  private readonly channels: Map<string, Channel>;
  private readonly o: Required<NotifierOptions>;
  private timers: NodeJS.Timeout[] = [];
  private kickTimer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  private lastPlan = 0;

  constructor(
    private readonly db: Db,
    private readonly store: MemoryStore,
    private readonly agents: AgentLookup,
    channels: Channel[],
    opts: NotifierOptions,
  ) {
    this.channels = new Map(channels.map((c) => [c.name, c]));
    this.o = {
      burstMs: 30_000,
      pollMs: 1000,
      planEveryMs: 15_000,
      claimMs: 60_000,
      gatherMs: 200,
      maxAttempts: 6,
      backoffMs: 2000,
      ...opts,
    };
  }

  get channelNames() {
    return [...this.channels.keys()];
  }

  /** A run paused: plan its pending requests' messages and send what is due (never throws). */
  async paused(runId: string): Promise<void> {
    try {
      await this.plan(await approvalReads.pendingOfRun(this.db, runId));
      this.kick();
    } catch (e) {
      log.warn("notification planning failed", { run_id: runId, error: String(e) });
    }
  }

  /** A decision committed: a closed request's reminders are dropped and channels that can update their message do (never throws). */
  async decided(a: ApprovalRecord, via = "console"): Promise<void> {
    try {
      if (a.status === "pending") return;
      await skipPendingOf(this.db, a.id, `request ${a.status}`);
      const outcome = await this.outcomeOf(a, via);
      // A digest's other requests, as they are now (each says how it was decided, or keeps its buttons).
      const outcomeOf = async (n: { approvalId: string; runId: string }) => {
        if (n.approvalId === a.id) return outcome;
        const run = await getRunRow(this.db, n.runId);
        const other = run ? await approvalReads.one(this.store, run.threadId, n.approvalId) : null;
        // The door of an earlier decision is not recorded: the line names who, not where ("").
        return other && other.status !== "pending" ? this.outcomeOf(other, "") : null;
      };
      const sent = await sentRefsOf(this.db, a.id);
      for (const s of sent) {
        const ch = this.channels.get(s.channel);
        if (ch?.update && s.sentRef)
          await ch
            .update({ channel: s.channel, ref: s.sentRef }, outcome, outcomeOf)
            .catch((e) => log.warn("notification update failed", { channel: s.channel, error: String(e) }));
      }
    } catch (e) {
      log.warn("notification bookkeeping after a decision failed", { approval_id: a.id, error: String(e) });
    }
  }

  /** What became of a request, its decider by the name they go by (as the message they clicked says it). */
  private async outcomeOf(a: ApprovalRecord, via: string): Promise<Outcome> {
    const last = a.decisions.at(-1);
    return {
      approvalId: a.id,
      status: a.status,
      by: last ? await nameOfEmail(this.db, last.by) : null,
      via,
      votes: { have: a.decisions.filter((d) => d.decision === "approve").length, need: a.quorum },
    };
  }

  /**
   * A comment was posted on a pending request: the others who may decide it are told (as each prefers), and
   * the request's Slack messages get it in their thread (never throws).
   */
  async commented(
    approvalId: string,
    threadId: string,
    comment: { seq: number; authorEmail: string; authorName: string | null; text: string },
  ): Promise<void> {
    try {
      const a = await approvalReads.one(this.store, threadId, approvalId);
      if (a?.status !== "pending" || !this.channels.size) return;
      const people = await activeUsers(this.db);
      const prefs = new Map(
        (
          await preferencesOf(
            this.db,
            people.map((p) => p.id),
          )
        ).map((p) => [p.userId, readPreference(p)]),
      );
      const submitter = (await getRunRow(this.db, a.root_run_id))?.submittedByEmail ?? a.requested_by;
      const handoffs = await loadHandoffs(this.db, [a.id], people);
      const author = comment.authorEmail.toLowerCase();
      const rows: PlannedNotification[] = [];
      const now = new Date();
      for (const u of recipientsOf(a, people, this.whoOf(a, submitter), handoffs.of(a.id))) {
        if (u.email.toLowerCase() === author) continue;
        const p = prefs.get(u.id) ?? readPreference(undefined);
        for (const channel of p.channels)
          if (this.channels.has(channel))
            rows.push({
              approvalId: a.id,
              runId: a.root_run_id,
              threadId: a.thread_id,
              agent: a.agent_name,
              tool: a.tool_name,
              requestedAt: new Date(a.requested_at_ms),
              userId: u.id,
              channel,
              kind: "comment",
              seq: comment.seq,
              dueAt: dueFor(p, now),
            });
      }
      await planNotifications(this.db, rows);
      const said = `${comment.authorName ?? comment.authorEmail} commented: ${comment.text}`;
      const threads = new Set<string>();
      for (const s of await sentRefsOf(this.db, a.id)) {
        const ch = this.channels.get(s.channel);
        if (!ch?.reply || !s.sentRef || threads.has(s.sentRef)) continue;
        threads.add(s.sentRef);
        await ch
          .reply({ channel: s.channel, ref: s.sentRef }, said)
          .catch((e) => log.warn("comment reply failed", { channel: s.channel, error: String(e) }));
      }
      this.kick();
    } catch (e) {
      log.warn("comment notification failed", { approval_id: approvalId, error: String(e) });
    }
  }

  /** Plans every pending request (what a crash between a pause and its planning left), then sends what is due. */
  async sweep(): Promise<void> {
    await this.plan(await approvalReads.allPending(this.db));
    await this.drain();
  }

  /** Starts this instance's loop: due messages every pollMs, a planning sweep every planEveryMs. */
  start() {
    if (this.timers.length || !this.channels.size) return;
    const tick = () => {
      const plan = Date.now() - this.lastPlan >= this.o.planEveryMs;
      if (plan) this.lastPlan = Date.now();
      (plan ? this.sweep() : this.drain()).catch((e) => log.warn("notification loop failed", { error: String(e) }));
    };
    const first = setTimeout(tick, 200);
    const t = setInterval(tick, this.o.pollMs);
    first.unref();
    t.unref();
    this.timers.push(first, t);
  }

  stop() {
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
    if (this.kickTimer) clearTimeout(this.kickTimer);
    this.kickTimer = null;
  }

  /** Sends everything due now; one pass at a time in this process (a call during a pass runs another after it). */
  drain(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      try {
        do {
          this.again = false;
          await this.pass();
        } while (this.again);
      } finally {
        this.running = null;
      }
    })();
    return this.running;
  }

  private kick() {
    if (this.kickTimer || !this.channels.size) return;
    this.kickTimer = setTimeout(() => {
      this.kickTimer = null;
      this.drain().catch((e) => log.warn("notification send failed", { error: String(e) }));
    }, this.o.gatherMs);
    this.kickTimer.unref();
  }

  // ---- Planning ----

  private async plan(approvals: ApprovalRecord[]) {
    if (!approvals.length || !this.channels.size) return;
    const people = await activeUsers(this.db);
    const prefs = new Map(
      (
        await preferencesOf(
          this.db,
          people.map((p) => p.id),
        )
      ).map((p) => [p.userId, readPreference(p)]),
    );
    const submitters = new Map<string, string | null>();
    const now = new Date();
    const handoffs = await loadHandoffs(
      this.db,
      approvals.map((a) => a.id),
      people,
      now,
    );
    const rows: PlannedNotification[] = [];
    for (const a of approvals) {
      if (!submitters.has(a.root_run_id))
        submitters.set(a.root_run_id, (await getRunRow(this.db, a.root_run_id))?.submittedByEmail ?? a.requested_by);
      const who = this.whoOf(a, submitters.get(a.root_run_id) ?? null);
      const rule = this.ruleOf(a);
      const { reminders, escalation } = followUps(a, rule);
      const base = {
        approvalId: a.id,
        runId: a.root_run_id,
        threadId: a.thread_id,
        agent: a.agent_name,
        tool: a.tool_name,
        requestedAt: new Date(a.requested_at_ms),
      };
      const add = (u: Candidate, kind: PlannedNotification["kind"], seq: number, at: Date | null) => {
        const pref = readPreference(undefined);
        const p = prefs.get(u.id) ?? pref;
        for (const channel of p.channels) {
          if (!this.channels.has(channel)) continue;
          rows.push({ ...base, userId: u.id, channel, kind, seq, dueAt: at ? afterQuietHours(p, at) : dueFor(p, now) });
        }
      };
      // A request handed on is announced to its new reviewers as such (each reassignment once).
      const assigned = handoffs.assignment(a.id);
      for (const u of recipientsOf(a, people, who, handoffs.of(a.id))) {
        if (assigned) add(u, "reassigned", assigned.seq, null);
        else add(u, "request", 0, null);
        for (const [i, t] of reminders.entries()) add(u, "reminder", i + 1, t);
      }
      if (escalation && rule?.escalateTo)
        for (const u of escalationTargets(a, rule.escalateTo, people, who)) add(u, "escalation", 0, escalation);
    }
    await planNotifications(this.db, rows);
  }

  private whoOf(a: ApprovalRecord, submitter: string | null) {
    const runAgent = this.agents.find(a.agent_name);
    return { submitter, selfApproval: !!runAgent?.allowSelfApproval };
  }

  private ruleOf(a: ApprovalRecord): NotifyRule | undefined {
    return this.agents.find(a.agent_name)?.policy?.find((r) => r.id === a.rule_id)?.notify;
  }

  // ---- Sending ----

  private async pass() {
    const now = new Date();
    for (const { userId, channel: name } of await dueRecipients(this.db, now)) {
      const channel = this.channels.get(name);
      if (!channel) continue;
      if (this.o.burstMs > 0) {
        const last = await lastSentTo(this.db, userId, name);
        if (last && now.getTime() - last.getTime() < this.o.burstMs) continue;
      }
      const claim = await claimDue(this.db, userId, name, now, this.o.claimMs);
      if (claim.rows.length) await this.deliver(channel, claim.token, claim.rows);
    }
  }

  private async deliver(channel: Channel, token: string, rows: NotificationRow[]) {
    const user = await recipientOf(this.db, rows[0].userId);
    if (!user || user.disabled) {
      await settleClaimed(
        this.db,
        token,
        rows.map((r) => r.id),
        { status: "skipped", lastError: "recipient gone or disabled" },
      );
      return;
    }
    const live: { row: NotificationRow; notice: Notice; approval: ApprovalRecord }[] = [];
    const skipped: string[] = [];
    const approvals = new Map<string, ApprovalRecord | null>();
    const submitters = new Map<string, string | null>();
    const handoffs = await loadHandoffs(this.db, [...new Set(rows.map((r) => r.approvalId))], await activeUsers(this.db));
    for (const row of rows) {
      if (!approvals.has(row.approvalId)) approvals.set(row.approvalId, await approvalReads.one(this.store, row.threadId, row.approvalId));
      const a = approvals.get(row.approvalId);
      // A request decided since, or one this person may no longer decide (they voted; their groups changed), is not sent.
      if (!submitters.has(row.runId))
        submitters.set(row.runId, (await getRunRow(this.db, row.runId))?.submittedByEmail ?? a?.requested_by ?? null);
      const submitter = submitters.get(row.runId) ?? null;
      const who = a ? this.whoOf(a, submitter) : null;
      const still =
        a &&
        a.status === "pending" &&
        who &&
        (row.kind === "escalation"
          ? escalationTargets(a, this.ruleOf(a)?.escalateTo ?? [], [user], who).length
          : recipientsOf(a, [user], who, handoffs.of(a.id)).length);
      if (!a || !still) {
        skipped.push(row.id);
        continue;
      }
      live.push({
        row,
        approval: a,
        notice: noticeOf(
          a,
          this.agents.toolsOf(a.agent_name).find((t) => t.name === a.tool_name),
          this.o.baseUrl,
          submitter,
        ),
      });
    }
    if (skipped.length) await settleClaimed(this.db, token, skipped, { status: "skipped", lastError: "no longer waiting for this person" });
    if (!live.length) return;
    const ids = live.map((l) => l.row.id);
    const delivery = await this.deliveryOf(live, handoffs);
    const key = `afk-${createHash("sha256").update(ids.slice().sort().join(",")).digest("hex").slice(0, 32)}`;
    const told = await alreadySent(
      this.db,
      live.map((l) => l.row.approvalId),
    );
    const firsts = live.filter((l) => l.row.kind === "request" && !told.has(l.row.approvalId));
    try {
      const sent = await channel.send({ userId: user.id, email: user.email, name: user.name }, delivery, key);
      const at = new Date();
      await settleClaimed(this.db, token, ids, { status: "sent", messageKey: key, sentRef: sent?.ref ?? null, sentAt: at });
      notificationSent(channel.name, delivery.type, "sent");
      const measured = new Set<string>();
      for (const f of firsts) {
        if (measured.has(f.row.approvalId)) continue;
        measured.add(f.row.approvalId);
        notificationFirst(f.row.agent, f.row.tool, (at.getTime() - f.row.requestedAt.getTime()) / 1000);
      }
      for (const l of live) {
        const action = KIND_ACTIONS[l.row.kind];
        if (action)
          await appendAudit(this.db, {
            actor: null,
            action,
            targetType: "run",
            targetId: l.row.runId,
            data: { approval_id: l.row.approvalId, to: user.email, channel: channel.name, count: l.row.seq, message: key },
          });
      }
    } catch (e) {
      const attempts = Math.max(...live.map((l) => l.row.attempts)) + 1;
      const failed = attempts >= this.o.maxAttempts;
      const error = (e instanceof Error ? e.message : String(e)).slice(0, 500);
      await settleClaimed(this.db, token, ids, {
        status: failed ? "failed" : "pending",
        lastError: error,
        attempts,
        dueAt: new Date(Date.now() + this.o.backoffMs * 4 ** (attempts - 1)),
      });
      notificationSent(channel.name, delivery.type, failed ? "failed" : "retry");
      log.warn("notification not delivered", { channel: channel.name, user_id: user.id, attempts, final: failed, error });
    }
  }

  private async deliveryOf(
    live: { row: NotificationRow; notice: Notice; approval: ApprovalRecord }[],
    handoffs: Handoffs,
  ): Promise<Delivery> {
    // Per request, the row that says most: an escalation, a reassignment, the latest comment, the latest
    // reminder, the request.
    const rank = (l: (typeof live)[number]) => (KIND_RANK[l.row.kind] ?? 0) + l.row.seq;
    const byApproval = new Map<string, (typeof live)[number]>();
    for (const l of live) if (rank(l) >= rank(byApproval.get(l.notice.approvalId) ?? l)) byApproval.set(l.notice.approvalId, l);
    const unique = [...byApproval.values()];
    if (unique.length > 1) return { type: "digest", notices: unique.map((l) => l.notice) };
    const { row, notice, approval } = unique[0];
    if (row.kind === "reassigned" || row.kind === "comment")
      return (await handoffDelivery(this.db, row, notice, handoffs)) ?? { type: "request", notice };
    if (row.kind === "reminder") return { type: "reminder", notice, count: row.seq };
    if (row.kind === "escalation") return { type: "escalation", notice, from: approval.groups.join(", ") || "its reviewers" };
    return { type: "request", notice };
  }
}
