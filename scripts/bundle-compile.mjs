// The bundle's scripts compiled by esbuild (scripts/bundle.mjs; tests/meta/bundle-scripts.test.ts compiles
// them the same way): the worker, the seed and the CLI, one file each with the packages they use (Next
// bundles the server's packages into its chunks, so the bundle's node_modules has few of them). Native and
// file-loading packages stay external; bundle.mjs copies them with the Prisma CLI's.
import { createRequire } from "node:module";
import path from "node:path";

export const SCRIPTS = [
  ["scripts/worker.ts", "worker.mjs"],
  ["scripts/seed.ts", "scripts/seed.mjs"],
  ["scripts/afk.ts", "scripts/afk.mjs"],
];
const EXTERNAL = ["better-sqlite3", "@prisma/*", "pg", "pg-native"];

// "server-only" throws unless resolved with the react-server condition, which a plain `node` lacks: it marks
// server modules for Next's bundler and has nothing to contribute here.
const serverOnly = {
  name: "server-only",
  setup(b) {
    b.onResolve({ filter: /^server-only$/ }, () => ({ path: "server-only", namespace: "empty" }));
    b.onLoad({ filter: /.*/, namespace: "empty" }, () => ({ contents: "" }));
  },
};

// Next's modules run only inside its server: the bundle's node_modules/next holds what its server traced, and
// an ESM `import "next/server"` does not resolve there (next has no exports map). A script that reaches Next
// would fail with ERR_MODULE_NOT_FOUND on its first start, so the compile fails instead, naming the importer.
const noNext = {
  name: "no-next",
  setup(b) {
    b.onResolve({ filter: /^next(\/|$)/ }, (a) => ({
      errors: [{ text: `${a.path} is imported by ${path.relative(process.cwd(), a.importer)}: the bundle's scripts run without Next` }],
    }));
  },
};

/** Compiles the scripts into `out` (or only checks them when `write` is false). */
export async function compileScripts(root, out, { write = true } = {}) {
  const esbuild = createRequire(import.meta.url)("esbuild");
  for (const [entry, file] of SCRIPTS) {
    await esbuild.build({
      entryPoints: [path.join(root, entry)],
      outfile: path.join(out, file),
      write,
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node20",
      external: EXTERNAL,
      conditions: ["react-server"],
      plugins: [serverOnly, noNext],
      logLevel: write ? "warning" : "silent",
      // Bundled ESM has no require; some packages' CommonJS shims ask for one.
      banner: { js: "import { createRequire as __afkRequire } from 'node:module'; const require = __afkRequire(import.meta.url);" },
    });
  }
}
