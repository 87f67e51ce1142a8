"use client";
// The bar that decides the selection (or, by key, the current row): Approve N, Reject N with a reason,
// and the confirmation a rule's confirmAbove asks for. A key press or the bulk button approves no request
// above its threshold without it, as a tap on its own Approve does not (components/approve-button.tsx).
import type { InboxRowDto } from "@/lib/dto";

export type DecideStep = "choose" | "confirm" | "reject";

export function DecideSelected({
  step,
  targets,
  selectedTool,
  busy,
  reason,
  setReason,
  setStep,
  approve,
  reject,
  clear,
}: {
  step: DecideStep;
  targets: InboxRowDto[];
  selectedTool: string | null;
  busy: boolean;
  reason: string;
  setReason: (r: string) => void;
  setStep: (s: Exclude<DecideStep, "choose"> | null) => void;
  /** Approves the targets; `confirmed`: the reviewer said yes to what confirmAbove asks. */
  approve: (confirmed: boolean) => void;
  reject: () => void;
  clear: () => void;
}) {
  const n = targets.length;
  const asks = targets.filter((a) => a.confirm);
  return (
    <section className="card flex flex-wrap items-end gap-2" aria-label="Decide selected">
      <span className="text-sm" data-testid="selection">
        {n} selected{selectedTool ? ` · ${selectedTool}` : ""}
      </span>
      {step === "choose" && (
        <>
          <button type="button" className="btn-primary" disabled={busy} onClick={() => approve(false)}>
            Approve {n}
          </button>
          <button type="button" className="btn-secondary" disabled={busy} onClick={() => setStep("reject")}>
            Reject {n}…
          </button>
          <button type="button" className="btn-secondary" onClick={clear}>
            Clear
          </button>
        </>
      )}
      {step === "confirm" && (
        <fieldset className="flex w-full flex-wrap items-center gap-2" data-testid="confirm-approve">
          <legend className="mb-2 text-sm font-medium">
            {asks.length === 1 ? asks[0].confirm : `${asks.length} of these ask to be confirmed:`}
          </legend>
          {asks.length > 1 && (
            <ul className="w-full list-disc pl-5 text-sm">
              {asks.map((a) => (
                <li key={a.id}>{a.confirm}</li>
              ))}
            </ul>
          )}
          <button
            type="button"
            className="btn-primary"
            disabled={busy}
            // biome-ignore lint/a11y/noAutofocus: the confirmation a key or a click just asked for
            autoFocus
            onClick={() => approve(true)}
            onKeyDown={(e) => e.key === "Escape" && setStep(null)}
          >
            Yes, approve {n}
          </button>
          <button type="button" className="btn-secondary" onClick={() => setStep(null)}>
            Cancel
          </button>
        </fieldset>
      )}
      {step === "reject" && (
        <form
          method="post"
          className="flex flex-wrap items-end gap-2"
          onSubmit={(e) => {
            e.preventDefault();
            if (reason.trim()) reject();
          }}
        >
          <div>
            <label className="label" htmlFor="bulk-reason">
              Reason for rejecting {n} (the model sees it)
            </label>
            <input
              id="bulk-reason"
              className="input mt-1"
              ref={(el) => el?.focus()}
              value={reason}
              onChange={(e) => setReason(e.target.value)}
              onKeyDown={(e) => e.key === "Escape" && setStep(null)}
            />
          </div>
          <button type="submit" className="btn-danger" disabled={busy || !reason.trim()}>
            Reject {n}
          </button>
          <button type="button" className="btn-secondary" onClick={() => setStep(null)}>
            Cancel
          </button>
        </form>
      )}
    </section>
  );
}
