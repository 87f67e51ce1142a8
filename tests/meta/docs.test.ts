// The README is the front door (at most 300 lines: what it is, the two commands, the console in pictures,
// links) and the manual lives in docs/ by topic: every relative link of the README, docs/ and bench/README.md
// reaches a file that exists and, when it names a heading, a heading of that file.
import { existsSync, readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../..");
const pages = ["README.md", "bench/README.md", ...readdirSync(path.join(root, "docs")).map((n) => `docs/${n}`)].filter((p) =>
  p.endsWith(".md"),
);
const read = (p: string) => readFileSync(path.join(root, p), "utf8");

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as dashes. */
const slug = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\- _]/gu, "")
    .replace(/ /g, "-");

/** The anchors of a page's headings, code blocks skipped (a shell comment is no heading). */
function anchors(text: string): Set<string> {
  const out = new Set<string>();
  let fenced = false;
  for (const line of text.split("\n")) {
    if (line.trimStart().startsWith("```")) fenced = !fenced;
    const m = !fenced && /^#{1,6} (.+)$/.exec(line);
    if (m) out.add(slug(m[1]));
  }
  return out;
}

/** Every link of a page that leads to a file, a heading or both, as [page, target]. */
function brokenLinks(page: string, text: string, exists: (p: string) => boolean, headings: (p: string) => Set<string>): string[] {
  const broken: string[] = [];
  for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
    if (/^[a-z]+:/.test(target)) continue;
    const [file, anchor] = target.split("#");
    const to = file ? path.posix.normalize(path.posix.join(path.posix.dirname(page), file)) : page;
    if (!exists(to) || (anchor && to.endsWith(".md") && !headings(to).has(anchor))) broken.push(`${page}: ${target}`);
  }
  return broken;
}

describe("docs", () => {
  it("the README is a front door of at most 300 lines that links to the manual's topics", () => {
    const readme = read("README.md");
    expect(readme.split("\n").length).toBeLessThanOrEqual(300);
    for (const topic of [
      "console",
      "agents",
      "runtime-protocol",
      "rest-api",
      "cli",
      "operating",
      "observability",
      "sso",
      "security",
      "architecture",
      "performance",
    ])
      expect(readme, topic).toContain(`](docs/${topic}.md)`);
  });

  it("keeps CI's test command and the screenshots the e2e run re-takes", () => {
    const readme = read("README.md");
    expect(readme).toContain("npm test ");
    const shots = [...readme.matchAll(/\]\((public\/screenshots\/[\w-]+\.png)\)/g)].map((m) => m[1]);
    expect(shots.length).toBeGreaterThan(5);
    const specs = ["e2e", "e2e/latency"].flatMap((d) =>
      readdirSync(path.join(root, d))
        .filter((n) => n.endsWith(".spec.ts"))
        .map((n) => read(`${d}/${n}`)),
    );
    for (const shot of shots)
      expect(
        specs.some((s) => s.includes(path.basename(shot))),
        shot,
      ).toBe(true);
  });

  it("every relative link of the README, docs/ and bench/README.md reaches a file and a heading that exist", () => {
    const exists = (p: string) => existsSync(path.join(root, p));
    const headings = (p: string) => anchors(read(p));
    expect(pages.flatMap((p) => brokenLinks(p, read(p), exists, headings))).toEqual([]);
  });

  it("the check finds a missing file, a missing heading and a heading inside a code block", () => {
    const files: Record<string, string> = { "docs/a.md": "# A\n\n## Deploy it\n\n```sh\n# not a heading\n```\n" };
    const exists = (p: string) => p in files;
    const headings = (p: string) => anchors(files[p]);
    const text = "[ok](a.md#deploy-it) [gone](b.md) [no](a.md#nowhere) [code](a.md#not-a-heading) [web](https://x.y/#z)";
    expect(brokenLinks("docs/c.md", text, exists, headings)).toEqual([
      "docs/c.md: b.md",
      "docs/c.md: a.md#nowhere",
      "docs/c.md: a.md#not-a-heading",
    ]);
  });
});
