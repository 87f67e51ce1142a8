-- Approvals move from JSON in the key-value table into their own table (issue 40): the record as it was
-- stored, and its projection into typed columns. Every approval row moves, readable or not (an unreadable
-- one keeps its text, so the runner's reader still names it, and its run, as corrupt).

-- CreateTable
CREATE TABLE "Approval" (
    "id" TEXT NOT NULL,
    "threadId" TEXT NOT NULL,
    "runId" TEXT NOT NULL,
    "rootRunId" TEXT NOT NULL,
    "step" INTEGER NOT NULL,
    "toolCallId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "agentName" TEXT NOT NULL,
    "toolName" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "requestedAtMs" BIGINT NOT NULL,
    "deadlineMs" BIGINT,
    "decidedAtMs" BIGINT,
    "decidedBy" TEXT,
    "decision" TEXT,
    "record" TEXT NOT NULL,

    CONSTRAINT "Approval_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "Approval_kind_check" CHECK ("kind" IN ('tool', 'question', 'llm', 'subagent')),
    CONSTRAINT "Approval_status_check" CHECK ("status" IN ('pending', 'approved', 'rejected', 'expired', 'responded')),
    CONSTRAINT "Approval_decision_check" CHECK ("decision" IN ('approve', 'reject', 'respond'))
);

-- CreateTable
CREATE TABLE "ApprovalGroup" (
    "approvalId" TEXT NOT NULL,
    "group" TEXT NOT NULL,

    CONSTRAINT "ApprovalGroup_pkey" PRIMARY KEY ("approvalId","group")
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
-- the key-value row projected or to a neutral value, and the record text is kept as it was. Only text
-- shaped as a JSON object is parsed (the runner writes nothing else), so a record mangled by hand moves
-- with the fallbacks instead of failing the migration. (No semicolon may appear in this file but at the
-- end of a statement: the PostgreSQL adapter runs a migration split at each one.)
INSERT INTO "Approval" ("id", "threadId", "runId", "rootRunId", "step", "toolCallId", "kind", "agentName", "toolName", "status",
  "version", "requestedAtMs", "deadlineMs", "decidedAtMs", "decidedBy", "decision", "record")
SELECT
  COALESCE(CASE WHEN jsonb_typeof(j->'id') = 'string' THEN j->>'id' END, substr("key", 10)),
  "threadId",
  COALESCE(CASE WHEN jsonb_typeof(j->'run_id') = 'string' THEN j->>'run_id' END, "runId", ''),
  COALESCE(CASE WHEN jsonb_typeof(j->'root_run_id') = 'string' THEN j->>'root_run_id' END, split_part(COALESCE("runId", ''), '.', 1)),
  COALESCE(CASE WHEN jsonb_typeof(j->'step') = 'number' THEN (j->>'step')::numeric::integer END, "step", 0),
  COALESCE(CASE WHEN jsonb_typeof(j->'tool_call_id') = 'string' THEN j->>'tool_call_id' END, ''),
  CASE WHEN j->>'kind' IN ('tool', 'question', 'llm', 'subagent') THEN j->>'kind' ELSE 'tool' END,
  COALESCE(CASE WHEN jsonb_typeof(j->'agent_name') = 'string' THEN j->>'agent_name' END, ''),
  COALESCE(CASE WHEN jsonb_typeof(j->'tool_name') = 'string' THEN j->>'tool_name' END, ''),
  CASE WHEN "status" IN ('pending', 'approved', 'rejected', 'expired', 'responded') THEN "status" ELSE 'pending' END,
  COALESCE(CASE WHEN jsonb_typeof(j->'version') = 'number' THEN (j->>'version')::numeric::integer END, 0),
  COALESCE(CASE WHEN jsonb_typeof(j->'requested_at_ms') = 'number' THEN (j->>'requested_at_ms')::numeric::bigint END, "timestampMs", 0),
  CASE WHEN jsonb_typeof(j->'deadline_ms') = 'number' THEN (j->>'deadline_ms')::numeric::bigint END,
  CASE WHEN jsonb_typeof(j->'decided_at_ms') = 'number' THEN (j->>'decided_at_ms')::numeric::bigint END,
  CASE WHEN "status" <> 'pending' AND jsonb_typeof(j->'decisions'->-1->'by') = 'string' THEN j->'decisions'->-1->>'by' END,
  CASE WHEN "status" <> 'pending' AND j->'decisions'->-1->>'decision' IN ('approve', 'reject', 'respond') THEN j->'decisions'->-1->>'decision' END,
  "value"
FROM (
  SELECT s.*, CASE WHEN s."value" ~ '^\{.*\}$' THEN s."value"::jsonb END AS j
  FROM "StateEntry" AS s WHERE s."kind" = 'approval'
) AS src;

INSERT INTO "ApprovalGroup" ("approvalId", "group")
SELECT DISTINCT a."id", g.name
FROM (SELECT "id", CASE WHEN "record" ~ '^\{.*\}$' THEN "record"::jsonb->'groups' END AS groups FROM "Approval") AS a,
  LATERAL jsonb_array_elements_text(CASE WHEN jsonb_typeof(a.groups) = 'array' THEN a.groups ELSE '[]'::jsonb END) AS g(name);

DELETE FROM "StateEntry" WHERE "kind" = 'approval';
