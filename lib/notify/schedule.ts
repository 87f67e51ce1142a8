// When a message may go to a person: their digest period and quiet hours (in their time zone), and when a
// request's reminders and escalation are due from its policy rule's `notify` settings.
import { z } from "zod";
import type { ApprovalRecord } from "./approvals.ts";

// Every channel the console has (the dispatcher skips those not configured): with Slack set up, a reviewer
// who never opened Settings gets direct messages too, as docs/slack.md promises ("nothing to set up per person").
export const DEFAULT_CHANNELS = ["email", "slack"];

const hhmm = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, "must be HH:MM (24 h)");

/** A person's preferences as stored (NotifyPreference) and as the settings form sends them. */
export const preferenceSchema = z
  .object({
    channels: z.array(z.string().min(1).max(20)).max(5),
    digestMinutes: z.coerce
      .number()
      .int()
      .min(0)
      .max(24 * 60),
    quietStart: hhmm.nullable(),
    quietEnd: hhmm.nullable(),
    timeZone: z
      .string()
      .min(1)
      .max(64)
      .refine((tz) => {
        try {
          new Intl.DateTimeFormat("en", { timeZone: tz });
          return true;
        } catch {
          return false;
        }
      }, "must be an IANA time zone such as Europe/Berlin"),
  })
  .refine((p) => (p.quietStart === null) === (p.quietEnd === null), { path: ["quietEnd"], message: "quiet hours need a start and an end" });
export type Preference = z.infer<typeof preferenceSchema>;

export const DEFAULT_PREFERENCE: Preference = {
  channels: DEFAULT_CHANNELS,
  digestMinutes: 0,
  quietStart: null,
  quietEnd: null,
  timeZone: "UTC",
};

/** A stored row as preferences (an unreadable one reads as the defaults). */
export function readPreference(
  row: { channels: string; digestMinutes: number; quietStart: string | null; quietEnd: string | null; timeZone: string } | undefined,
): Preference {
  if (!row) return DEFAULT_PREFERENCE;
  let channels: unknown;
  try {
    channels = JSON.parse(row.channels);
  } catch {
    channels = DEFAULT_CHANNELS;
  }
  const p = preferenceSchema.safeParse({ ...row, channels });
  return p.success ? p.data : DEFAULT_PREFERENCE;
}

const minutesOf = (s: string) => Number(s.slice(0, 2)) * 60 + Number(s.slice(3, 5));

/** Minutes past local midnight in a time zone. */
function localMinutes(at: Date, timeZone: string): number {
  const parts = new Intl.DateTimeFormat("en-GB", { timeZone, hour: "2-digit", minute: "2-digit", hourCycle: "h23" }).formatToParts(at);
  const get = (t: string) => Number(parts.find((p) => p.type === t)?.value ?? 0);
  return get("hour") * 60 + get("minute");
}

/** The earliest time at or after `at` outside the person's quiet hours. */
export function afterQuietHours(p: Preference, at: Date): Date {
  if (!p.quietStart || !p.quietEnd) return at;
  const [start, end] = [minutesOf(p.quietStart), minutesOf(p.quietEnd)];
  if (start === end) return at;
  const now = localMinutes(at, p.timeZone);
  const quiet = start < end ? now >= start && now < end : now >= start || now < end;
  if (!quiet) return at;
  const wait = (end - now + 24 * 60) % (24 * 60);
  const t = new Date(at.getTime() + wait * 60_000);
  t.setUTCSeconds(0, 0);
  return t;
}

/** When a message planned at `at` is due for this person: the next digest time (if they take digests), then past quiet hours. */
export function dueFor(p: Preference, at: Date): Date {
  let t = at;
  if (p.digestMinutes > 0) {
    const period = p.digestMinutes * 60_000;
    t = new Date(Math.ceil(at.getTime() / period) * period);
  }
  return afterQuietHours(p, t);
}

/** A policy rule's notification settings (PolicyRule.notify). */
export type NotifyRule = { remindAfter?: number; maxReminders?: number; escalateAfter?: number; escalateTo?: string[] };

/**
 * Reminders and escalation of a request: shares of its time to decide (its deadline), so a request
 * without a deadline gets neither. Reminders at remindAfter, 2×remindAfter, … (at most maxReminders,
 * default 1, all before the deadline); the escalation at escalateAfter.
 */
export function followUps(a: ApprovalRecord, rule: NotifyRule | undefined): { reminders: Date[]; escalation: Date | null } {
  const none = { reminders: [], escalation: null };
  if (!rule || a.deadline_ms === null) return none;
  const window = a.deadline_ms - a.requested_at_ms;
  if (window <= 0) return none;
  const reminders: Date[] = [];
  if (rule.remindAfter && rule.remindAfter > 0 && rule.remindAfter < 1)
    for (let k = 1; k <= (rule.maxReminders ?? 1) && k * rule.remindAfter < 1; k++)
      reminders.push(new Date(a.requested_at_ms + Math.round(window * rule.remindAfter * k)));
  const escalation =
    rule.escalateAfter && rule.escalateAfter > 0 && rule.escalateAfter < 1 && rule.escalateTo?.length
      ? new Date(a.requested_at_ms + Math.round(window * rule.escalateAfter))
      : null;
  return { reminders, escalation };
}
