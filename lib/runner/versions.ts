// Schema versions of every record the runner serializes, in one place and of one value type ("v<N>",
// as checkpoint-schema.md's `schema_version` is). Writers stamp `SCHEMA_VERSIONS[kind]`; readers accept
// exactly the versions listed in `READABLE` — formats something actually wrote — and anything else is
// an AgentCheckpointCorruptionError.
//
// History (newest last):
// - checkpoint v1: the reference's record (afk-runtime.md, "Checkpoints as the reference writes them").
//   Its legacy records without a version, or with `schemaVersion`/`version`, camelCase ids and `data`,
//   are read as v1 (the normalizer in checkpoint.ts).
// - snapshot, approval, effect v1: written as the number 1 by AFK Console 0.1 (until 2026-12-03), as
//   "v1" since; both read as v1.
// - event v1: run events as webhooks and the CLI see them (not stored); the number 1 until 2026-12-03.
// - approval v2 (2026-12-03): a reviewer may respond in the tool's place — decision "respond", status
//   "responded". v1 records read as they are (they hold neither); a v1 reader refuses v2 records as an
//   unsupported version instead of misreading a status it does not know.
// - approval v3 (2026-12-03): `kind` ("tool" | "question", a question asked with askHuman) and a
//   decision's `answer` (the object a reviewer filled from the question's answer schema). v1/v2 records
//   read as kind "tool" with no answers.
// - approval v4 (2026-12-04): kinds "llm" (a gate before a model call; its args are the run's facts) and
//   "subagent" (a gate before a delegation; its args are `{task}`). v1–v3 records read as they are.
// - approval v5 (2026-12-04): `groups`, the groups whose members may decide (routing). v1–v4 records
//   read with no groups: anyone who may decide approvals decides them, as before.
// - approval v6 (2026-12-05): `external`, an interrupt parked by an external runtime (the runtime
//   protocol): its own id, batch, the decisions it can apply, its schemas. v1–v5 records read with none.
// - storage v2 of checkpoint and effect records (2026-12-07): stored as `{"v":2,…}` bodies that leave
//   out what their key says, checkpoint records in windows of deltas (record-codec.ts, effects.ts). They
//   read back as the same checkpoint v1 and effect v1 records; records stored plain (every earlier
//   version) read as before.
import { z } from "zod";

export type SchemaVersion = `v${number}`;

export const SCHEMA_VERSIONS = {
  checkpoint: "v1",
  snapshot: "v1",
  approval: "v6",
  effect: "v1",
  event: "v1",
} as const satisfies Record<string, SchemaVersion>;

export type RecordKind = keyof typeof SCHEMA_VERSIONS;

const READABLE: Record<RecordKind, readonly (string | number)[]> = {
  checkpoint: ["v1"],
  snapshot: ["v1", 1],
  approval: ["v6", "v5", "v4", "v3", "v2", "v1", 1],
  effect: ["v1", 1],
  event: ["v1"],
};

/** True when a stored record of this kind with this version can be read. */
export function isReadableVersion(kind: RecordKind, version: unknown): boolean {
  return (typeof version === "string" || typeof version === "number") && READABLE[kind].includes(version);
}

/** The zod field for a record's `schema_version`: accepts what `READABLE` lists, yields the current version. */
export function versionField(kind: RecordKind) {
  const current: SchemaVersion = SCHEMA_VERSIONS[kind];
  return z
    .unknown()
    .refine((v) => isReadableVersion(kind, v), { message: `unsupported ${kind} schema_version` })
    .transform((): SchemaVersion => current)
    .pipe(z.literal(current));
}
