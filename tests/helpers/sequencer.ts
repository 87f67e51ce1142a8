import path from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

// The files that take longest, longest first (seconds in a clean 2-core run). vitest starts the files it
// has no timings for largest first: on a clean clone (no cache) the crash test, a short file, started near
// the end and ran alone on one worker for three minutes while the other had nothing left to do. Started
// first, the rest of the suite runs beside it.
const LONGEST = [
  "tests/scenarios/crash.test.ts", // 180 s
  "tests/cli/cli.test.ts", // 55 s
  "tests/scenarios/backup.test.ts", // 18 s
  "tests/scenarios/console-corruption.property.test.ts", // 15 s
  "tests/scenarios/store-fault.test.ts", // 15 s
  "tests/runtime/adapters.test.ts", // 14 s
  "tests/http/api-fuzz.test.ts", // 11 s
  "tests/scenarios/upgrade.test.ts", // 10 s
];

/** vitest's own order (timings from its cache, else largest first), with the longest files above moved to the front. */
export class LongestFirst extends BaseSequencer {
  async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const rank = (f: TestSpecification) => {
      const i = LONGEST.indexOf(path.relative(root, f.moduleId).split(path.sep).join("/"));
      return i < 0 ? LONGEST.length : i;
    };
    return [...(await super.sort(files))].sort((a, b) => rank(a) - rank(b));
  }
}
