// What a timeline page's HTML carries: the rows of its first screen. A page holds up to 100 checkpoints,
// and their rows were most of its HTML (about 0.6 KB each now); the rest are rendered by the browser once it
// has hydrated, from the points the page carries anyway for its picture. Without JavaScript the page's
// "Next page" link goes on from the last row shown instead. Imported by the page (a server component) and
// the rows (a client one): not a "use client" module, whose exports a server component only sees as
// references.
import { checkpointCursor } from "@/lib/runner/keys";
import type { TimelinePoint } from "@/lib/timeline";

/** The rows the server's HTML carries: a screenful below the picture, at a desk (1280 × 800 shows 7–10 of
 * them, 1440 × 900 up to 12) or on a phone (4–6). */
export const FIRST_ROWS = 12;

/** The cursor of the page that starts after `p`: an external run's is a seq (lib/services/timeline.ts), a
 * checkpoint's is its key. */
export const cursorAfter = (runId: string, p: TimelinePoint, external: boolean): string =>
  external ? String(p.seq) : checkpointCursor(runId, p);

/** The cursor that goes on after the first screen's last row, when the page has more rows than that. */
export const afterFirstScreen = (runId: string, points: TimelinePoint[], external: boolean): string | null =>
  points.length > FIRST_ROWS ? cursorAfter(runId, points[FIRST_ROWS - 1], external) : null;
