-- Approvals move from JSON in the key-value table into their own table (issue 40): the record as it was
-- stored, and its projection into typed columns. Every approval row moves, readable or not (an unreadable
-- one keeps its text, so the runner's reader still names it, and its run, as corrupt).

-- CreateTable
CREATE TABLE "Approval" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "threadId" TEXT NOT NULL,
    "runId" TEXT NOT NULL,
    "rootRunId" TEXT NOT NULL,
    "step" INTEGER NOT NULL,
    "toolCallId" TEXT NOT NULL,
    "kind" TEXT NOT NULL CHECK ("kind" IN ('tool', 'question', 'llm', 'subagent')),
    "agentName" TEXT NOT NULL,
    "toolName" TEXT NOT NULL,
    "status" TEXT NOT NULL CHECK ("status" IN ('pending', 'approved', 'rejected', 'expired', 'responded')),
    "version" INTEGER NOT NULL,
    "requestedAtMs" BIGINT NOT NULL,
    "deadlineMs" BIGINT,
    "decidedAtMs" BIGINT,
    "decidedBy" TEXT,
    "decision" TEXT CHECK ("decision" IN ('approve', 'reject', 'respond')),
    "record" TEXT NOT NULL
);

-- CreateTable
CREATE TABLE "ApprovalGroup" (
    "approvalId" TEXT NOT NULL,
    "group" TEXT NOT NULL,

    PRIMARY KEY ("approvalId", "group")
);

-- CreateIndex
CREATE INDEX "Approval_status_requestedAtMs_id_idx" ON "Approval"("status", "requestedAtMs", "id");

-- CreateIndex
CREATE INDEX "Approval_status_agentName_requestedAtMs_idx" ON "Approval"("status", "agentName", "requestedAtMs");

-- CreateIndex
CREATE INDEX "Approval_status_toolName_requestedAtMs_idx" ON "Approval"("status", "toolName", "requestedAtMs");

-- CreateIndex
CREATE INDEX "Approval_status_deadlineMs_idx" ON "Approval"("status", "deadlineMs");

-- CreateIndex
CREATE INDEX "Approval_rootRunId_status_idx" ON "Approval"("rootRunId", "status");

-- CreateIndex
CREATE INDEX "Approval_threadId_runId_step_idx" ON "Approval"("threadId", "runId", "step");

-- CreateIndex
CREATE INDEX "ApprovalGroup_group_approvalId_idx" ON "ApprovalGroup"("group", "approvalId");

-- Move the approval records. A field the record lacks (or holds with the wrong type) falls back to what
-- the key-value row projected or to a neutral value, and the record text is kept as it was.
INSERT INTO "Approval" ("id", "threadId", "runId", "rootRunId", "step", "toolCallId", "kind", "agentName", "toolName", "status",
  "version", "requestedAtMs", "deadlineMs", "decidedAtMs", "decidedBy", "decision", "record")
SELECT
  COALESCE(CASE WHEN j AND json_type("value", '$.id') = 'text' THEN json_extract("value", '$.id') END, substr("key", 10)),
  "threadId",
  COALESCE(CASE WHEN j AND json_type("value", '$.run_id') = 'text' THEN json_extract("value", '$.run_id') END, "runId", ''),
  COALESCE(CASE WHEN j AND json_type("value", '$.root_run_id') = 'text' THEN json_extract("value", '$.root_run_id') END,
    CASE WHEN instr(COALESCE("runId", ''), '.') > 0 THEN substr("runId", 1, instr("runId", '.') - 1) ELSE COALESCE("runId", '') END),
  COALESCE(CASE WHEN j AND json_type("value", '$.step') = 'integer' THEN json_extract("value", '$.step') END, "step", 0),
  COALESCE(CASE WHEN j AND json_type("value", '$.tool_call_id') = 'text' THEN json_extract("value", '$.tool_call_id') END, ''),
  CASE WHEN j AND json_extract("value", '$.kind') IN ('tool', 'question', 'llm', 'subagent') THEN json_extract("value", '$.kind') ELSE 'tool' END,
  COALESCE(CASE WHEN j AND json_type("value", '$.agent_name') = 'text' THEN json_extract("value", '$.agent_name') END, ''),
  COALESCE(CASE WHEN j AND json_type("value", '$.tool_name') = 'text' THEN json_extract("value", '$.tool_name') END, ''),
  CASE WHEN "status" IN ('pending', 'approved', 'rejected', 'expired', 'responded') THEN "status" ELSE 'pending' END,
  COALESCE(CASE WHEN j AND json_type("value", '$.version') = 'integer' THEN json_extract("value", '$.version') END, 0),
  COALESCE(CASE WHEN j AND json_type("value", '$.requested_at_ms') = 'integer' THEN json_extract("value", '$.requested_at_ms') END, "timestampMs", 0),
  CASE WHEN j AND json_type("value", '$.deadline_ms') = 'integer' THEN json_extract("value", '$.deadline_ms') END,
  CASE WHEN j AND json_type("value", '$.decided_at_ms') = 'integer' THEN json_extract("value", '$.decided_at_ms') END,
  CASE WHEN j AND "status" <> 'pending' AND json_type("value", '$.decisions[#-1].by') = 'text' THEN json_extract("value", '$.decisions[#-1].by') END,
  CASE WHEN j AND "status" <> 'pending' AND json_extract("value", '$.decisions[#-1].decision') IN ('approve', 'reject', 'respond')
    THEN json_extract("value", '$.decisions[#-1].decision') END,
  "value"
FROM (SELECT *, json_valid("value") AND json_type("value") = 'object' AS j FROM "StateEntry" WHERE "kind" = 'approval');

INSERT INTO "ApprovalGroup" ("approvalId", "group")
SELECT DISTINCT a."id", g."value" FROM "Approval" AS a, json_each(a."record", '$.groups') AS g
WHERE json_valid(a."record") AND json_type(a."record", '$.groups') = 'array' AND g."type" = 'text';

DELETE FROM "StateEntry" WHERE "kind" = 'approval';
