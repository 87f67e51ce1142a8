// A form handled by a script is still a form to the browser until React hydrates: submitted before that
// (a slow network, next dev compiling a page), it would GET the page with every field in the URL (server
// logs, history, proxies), passwords included. So each form says its method: "get" for the filters that
// are meant as URLs, "post" for the rest (a POST to a page only renders it again).
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { root, sourceFiles } from "../helpers/sources";

const tsx = (dir: string) => sourceFiles(dir, (n) => n.endsWith(".tsx"));

// Each <form …> element's opening tag, up to its first ">" that is not inside a {…} expression.
function formTags(source: string): string[] {
  const tags: string[] = [];
  for (const m of source.matchAll(/<form(?=[\s>])/g)) {
    let depth = 0;
    let i = m.index + 5;
    for (; i < source.length; i++) {
      const c = source[i];
      if (c === "{") depth++;
      else if (c === "}") depth--;
      else if (c === ">" && depth === 0) break;
    }
    tags.push(source.slice(m.index, i + 1));
  }
  return tags;
}

describe("forms", () => {
  const files = ["app", "components"].flatMap(tsx);
  const forms = files.flatMap((f) => formTags(readFileSync(path.join(root, f), "utf8")).map((tag) => ({ f, tag })));

  it("every form says its method (get for a filter, post for the rest)", () => {
    expect(forms.length).toBeGreaterThan(10);
    const without = forms.filter(({ tag }) => !/\smethod="(get|post)"/.test(tag)).map(({ f, tag }) => `${f}: ${tag.slice(0, 80)}`);
    expect(without).toEqual([]);
  });

  it("a form with a password field posts", () => {
    const withPassword = files.filter((f) => /type="password"/.test(readFileSync(path.join(root, f), "utf8")));
    expect(withPassword.length).toBeGreaterThanOrEqual(2);
    for (const f of withPassword) {
      for (const tag of formTags(readFileSync(path.join(root, f), "utf8"))) expect(tag, f).toMatch(/\smethod="post"/);
    }
  });
});
