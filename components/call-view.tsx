// What will run, as one readable thing: the call's fields as people read them (money, dates, enum labels
// from its schema), with a reviewer's edits applied, what the edit changed (before → after), and the raw
// JSON behind a toggle; a model-call gate as the prompt it sends and its cost in words. The values are the
// model's: text nodes only.
import { changeView } from "@/lib/display";
import { gateFacts, gateWords } from "@/lib/display-call";
import { plural } from "@/lib/format";
import { ArgFields } from "./arg-fields";
import { JsonView } from "./ui";

/** Characters of the prompt's last message shown (the rest is the conversation above it). */
const PROMPT_CHARS = 600;

export function CallView({
  toolName,
  args,
  approvedArgs,
  changes,
  schema,
  pending,
}: {
  toolName: string;
  args: Record<string, unknown>;
  approvedArgs: Record<string, unknown> | null;
  changes: { field: string; before: unknown; after: unknown }[];
  schema: unknown;
  pending: boolean;
}) {
  const runs = approvedArgs ?? args;
  // An approval stores the arguments it approved; they differ from the model's only after an edit.
  const edited = changes.length > 0;
  return (
    <div className="mt-2 space-y-2" data-testid="call-view">
      <ArgFields values={runs} schema={schema} label={pending ? `What ${toolName} will run` : `What ${toolName} was asked to do`} />
      {changes.length > 0 && (
        <div className="text-xs" data-testid="arg-changes">
          <p className="font-semibold">Edited by a reviewer</p>
          <ul>
            {changes.map((c) => {
              const v = changeView(c, schema);
              return (
                <li key={c.field} className="break-words">
                  {v.label}: <del>{v.before}</del> → <ins>{v.after}</ins>
                </li>
              );
            })}
          </ul>
        </div>
      )}
      <details className="text-xs">
        <summary className="cursor-pointer text-slate-600 dark:text-slate-400">Raw JSON</summary>
        <JsonView value={runs} label={`Arguments of ${toolName}${edited ? " as edited" : ""}`} />
        {edited && (
          <>
            <p className="mt-1 text-slate-600 dark:text-slate-400">As the model asked:</p>
            <JsonView value={args} label={`Arguments of ${toolName} as the model asked`} />
          </>
        )}
      </details>
    </div>
  );
}

/** A model-call gate: what the call sends (its last message) and what the run has used so far, in words. */
export function GateView({ args, lastMessage }: { args: Record<string, unknown>; lastMessage: { who: string; text: string } | null }) {
  const f = gateFacts(args);
  const text =
    lastMessage && lastMessage.text.length > PROMPT_CHARS ? `${lastMessage.text.slice(0, PROMPT_CHARS - 1)}…` : lastMessage?.text;
  return (
    <div className="mt-2 space-y-2 text-sm" data-testid="gate-view">
      <p>
        Sends {f.messages === null ? "the conversation so far" : `the conversation so far (${plural(f.messages, "message")})`} to{" "}
        <span className="font-mono">{f.model}</span>.
      </p>
      {lastMessage && text && (
        <figure>
          <figcaption className="text-xs text-slate-600 dark:text-slate-400">Its last message · {lastMessage.who}</figcaption>
          <p className="msg-text mt-1 rounded bg-slate-100 p-2 dark:bg-slate-900" data-testid="gate-prompt">
            {text}
          </p>
        </figure>
      )}
      <p data-testid="gate-cost">The run so far: {gateWords(f)}.</p>
      <details className="text-xs">
        <summary className="cursor-pointer text-slate-600 dark:text-slate-400">Raw JSON</summary>
        <JsonView value={args} label="The run's counters before the model call" />
      </details>
    </div>
  );
}
