import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
// @ts-expect-error plain JS module shared with the CLI
import { diffModels, modelsOf } from "../../scripts/schema-check.mjs";

const root = path.resolve(import.meta.dirname, "../..");

describe("one data model, two providers", () => {
  it("the committed schemas agree and each provider's migrations produce its schema", () => {
    const out = execFileSync(process.execPath, ["scripts/schema-check.mjs"], { cwd: root, encoding: "utf8", env: process.env });
    expect(out).toMatch(/models identical; migrations match/);
    if (process.env.TEST_POSTGRES_URL) expect(out).toContain("(sqlite, postgres)");
  });

  it("detects a field that exists in one provider's schema only", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "afk-drift-"));
    try {
      cpSync(path.join(root, "prisma/models.prisma"), path.join(dir, "models.prisma"));
      const sqlite = modelsOf(path.join(root, "prisma/sqlite"));
      writeFileSync(
        path.join(dir, "models.prisma"),
        readFileSync(path.join(dir, "models.prisma"), "utf8").replace("model User {", "model User {\n  nickname String?"),
      );
      const problems = diffModels(sqlite, modelsOf(dir));
      expect(problems).toHaveLength(1);
      expect(problems[0]).toMatch(/model User differs/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
