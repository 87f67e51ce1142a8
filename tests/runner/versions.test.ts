import { describe, expect, it } from "vitest";
import {
  AgentCheckpointCorruptionError,
  SCHEMA_VERSIONS,
  effectRecordSchema,
  makeEffect,
  normalizeCheckpointRecord,
  versionField,
} from "../../lib/runner/index.ts";

describe("schema versions (lib/runner/versions.ts)", () => {
  it("every kind is stamped with a v<N> string", () => {
    for (const v of Object.values(SCHEMA_VERSIONS)) expect(v).toMatch(/^v\d+$/);
  });

  it("reads the number 1 that AFK Console 0.1 wrote as v1, and nothing else", () => {
    const f = versionField("effect");
    expect(f.parse(1)).toBe("v1");
    expect(f.parse("v1")).toBe("v1");
    for (const bad of [2, "1", "v2", null, undefined, {}]) expect(f.safeParse(bad).success).toBe(false);
  });

  it("an old effect record is read and re-stamped with the current version", () => {
    const e = makeEffect({
      tool_name: "t",
      tool_call_id: "c",
      args: { a: 1 },
      output: "ok",
      error: null,
      success: true,
      run_id: "r",
      step: 1,
      timestamp_ms: 1,
    });
    expect(e.schema_version).toBe("v1");
    expect(effectRecordSchema.parse({ ...e, schema_version: 1 }).schema_version).toBe("v1");
  });

  it("checkpoints accept only what the reference wrote: v1 or no version", () => {
    const base = { run_id: "r", thread_id: "t", step: 1, phase: "pre_llm", timestamp_ms: 1, payload: {} };
    expect(normalizeCheckpointRecord({ ...base, schema_version: "v1" }).schema_version).toBe("v1");
    expect(normalizeCheckpointRecord(base).schema_version).toBe("v1");
    for (const v of ["1", 1, "v2"])
      expect(() => normalizeCheckpointRecord({ ...base, schema_version: v }, "k")).toThrow(AgentCheckpointCorruptionError);
  });
});
