// A table on a desk, a list of cards on a phone, in one markup: below the sm breakpoint the table and its
// body lay out as blocks, each row as a wrapping line of its cells (a card), the header is left to screen
// readers, and `.table-cards` (app/globals.css) moves the cells' padding and borders to the card. Chromium
// and Firefox keep a table's roles when CSS lays it out as blocks, so screen readers still read rows and
// cells. Server and client components both use it (no state here). The row's, the label's and the tap
// target's classes are in app/globals.css (card-row, phone-label, tap).
import type { ComponentProps, ReactNode } from "react";

/** The card around the table and the table with its header row; the rows (CardRow) are its children. */
export function CardTable({ label, head, children }: { label: string; head: ReactNode; children: ReactNode }) {
  return (
    <div className="card p-0 sm:overflow-x-auto">
      <table className="table-afk table-cards max-sm:block" aria-label={label}>
        <thead className="max-sm:sr-only">
          <tr>{head}</tr>
        </thead>
        <tbody className="max-sm:block">{children}</tbody>
      </table>
    </div>
  );
}

/**
 * A row, a card on a phone. `lead`: the cells given LEAD orders come first, and the other cells start on a
 * line of their own under them (an empty ::before, ordered after the lead cells, takes a whole line).
 */
export function CardRow({ lead = false, className = "", ...props }: ComponentProps<"tr"> & { lead?: boolean }) {
  // Each class name whole in the source: Tailwind emits a utility only for the names it finds there.
  const row = lead ? "card-row card-row-lead" : "card-row";
  return <tr className={className ? `${row} ${className}` : row} {...props} />;
}

/** On a phone, the order of a row's identifying cells: LEAD[0] first, then LEAD[1], LEAD[2]; desktop keeps the columns. */
export const LEAD = ["max-sm:-order-3", "max-sm:-order-2", "max-sm:-order-1"] as const;

/**
 * A link in a card's line of text, on a phone a target a finger hits (40 px tall) that does not make the
 * line taller: the negative margins give back what the height adds.
 */
export const TAP = "tap";

/** Only on a phone: what a cell is, since the table's header is not shown there. One text node (`{children} `
 * would be two, and React's `<!-- -->` between them in the HTML of every labelled cell of every row). */
export const PhoneLabel = ({ children, className = "" }: { children: string; className?: string }) => (
  <span className={className ? `phone-label ${className}` : "phone-label"}>{`${children} `}</span>
);

/**
 * A cell that says on a phone what it is (its PhoneLabel before the value) in the cards' small text
 * (`labelled`, app/globals.css); the other props go to the `td` (a title, more classes).
 */
export function LabelledCell({ label, className = "", children, ...props }: ComponentProps<"td"> & { label: string }) {
  return (
    <td className={className ? `labelled ${className}` : "labelled"} {...props}>
      <PhoneLabel>{label}</PhoneLabel>
      {children}
    </td>
  );
}
