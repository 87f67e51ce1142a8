"use client";
// Approve, asking first when the request's rule sets a threshold it is above (confirmAbove: "Approve
// issue_refund with Amount €1,500.00?"): one tap, on a phone above all, never approves such a request by
// itself. The confirmation is the browser's only: the decision is still made once, by one call.
import { useState } from "react";

export function ApproveButton({
  confirm,
  disabled,
  onApprove,
  label = "Approve",
}: {
  confirm: string | null | undefined;
  disabled?: boolean;
  onApprove: () => void;
  label?: string;
}) {
  const [asking, setAsking] = useState(false);
  if (!confirm || !asking)
    return (
      <button type="button" className="btn-primary" disabled={disabled} onClick={() => (confirm ? setAsking(true) : onApprove())}>
        {label}
      </button>
    );
  return (
    <fieldset className="flex w-full flex-wrap items-center gap-2" data-testid="confirm-approve">
      <legend className="mb-2 text-sm font-medium">{confirm}</legend>
      <button
        type="button"
        className="btn-primary"
        disabled={disabled}
        // biome-ignore lint/a11y/noAutofocus: the confirmation a tap just asked for
        autoFocus
        onClick={() => {
          setAsking(false);
          onApprove();
        }}
      >
        Yes, approve
      </button>
      <button type="button" className="btn-secondary" onClick={() => setAsking(false)}>
        Cancel
      </button>
    </fieldset>
  );
}
