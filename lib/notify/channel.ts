// What a notification channel (email, Slack, …) is given and must do. The dispatcher (lib/notify) decides
// who is told what and when, records each delivery, retries and de-duplicates; a channel only renders and
// sends. A channel never decides anything: buttons and links lead back to the console's own doors.

/** One request waiting for a person, with its values already formatted for people (as on the card). */
export type Notice = {
  approvalId: string;
  runId: string;
  agent: string;
  /** tool_call | question | gate | external */
  kind: string;
  /** e.g. "Approve issue_refund" or the question's text. */
  title: string;
  /** The call's arguments (or the question's fields) as label/value pairs, formatted from the schema. */
  fields: { label: string; value: string }[];
  /** Who the run acts for (its submitter), if known. */
  requestedBy: string | null;
  /** ISO time after which the request expires, if any. */
  deadline: string | null;
  /** The card in the console (opens after sign-in; nothing is decided by following it). */
  url: string;
  routingGroups: string[];
  /** reviewedArgsHash of the record the fields were formatted from: a decision taken from the message carries
   * it, so arguments edited since are refused as stale (Slack shows no buttons without it). */
  argsHash?: string;
};

export type Recipient = { userId: string; email: string; name: string | null };

/** A message as delivered, so it can be updated later (Slack: channel + ts; email: Message-ID). */
export type SentRef = { channel: string; ref: string };

export type Delivery =
  | { type: "request"; notice: Notice }
  | { type: "digest"; notices: Notice[] }
  | { type: "reminder"; notice: Notice; count: number }
  | { type: "escalation"; notice: Notice; from: string }
  /** Handed to this person (or a group of theirs) by `by`. */
  | { type: "reassigned"; notice: Notice; by: string; to: string; reason: string | null }
  /** Someone commented on a request this person may decide. */
  | { type: "comment"; notice: Notice; by: string; text: string };

/** The outcome of a request, for channels that update what they sent ("Approved by Ana in the console"). */
export type Outcome = { approvalId: string; status: string; by: string | null; via: string; votes?: { have: number; need: number } };

export interface Channel {
  readonly name: "email" | "slack" | (string & {});
  /** Sends one delivery to one recipient; throws on a failure worth retrying. `key` is stable per
   * (delivery, recipient) so a retry can be recognised by the receiving side where it supports it. */
  send(to: Recipient, delivery: Delivery, key: string): Promise<SentRef | null>;
  /** Updates a message sent earlier once its request is decided anywhere (optional). A digest shows other
   * requests too: `outcomeOf` tells what became of each of them (null: still waiting, or gone). */
  update?(
    sent: SentRef,
    outcome: Outcome,
    outcomeOf?: (n: { approvalId: string; runId: string }) => Promise<Outcome | null>,
  ): Promise<void>;
  /** Posts a reply under a message sent earlier (Slack: its thread), e.g. a comment on the request (optional). */
  reply?(sent: SentRef, text: string): Promise<void>;
}
