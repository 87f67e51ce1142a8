-- CreateTable
CREATE TABLE "ApprovalAssignment" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "approvalId" TEXT NOT NULL,
    "runId" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "toEmail" TEXT,
    "toGroup" TEXT,
    "byEmail" TEXT NOT NULL,
    "reason" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "ApprovalComment" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "approvalId" TEXT NOT NULL,
    "runId" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "authorEmail" TEXT NOT NULL,
    "authorName" TEXT,
    "text" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "Delegation" (
    "userId" TEXT NOT NULL PRIMARY KEY,
    "deputyId" TEXT NOT NULL,
    "startsAt" DATETIME NOT NULL,
    "endsAt" DATETIME NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateIndex
CREATE UNIQUE INDEX "ApprovalAssignment_approvalId_seq_key" ON "ApprovalAssignment"("approvalId", "seq");

-- CreateIndex
CREATE UNIQUE INDEX "ApprovalComment_approvalId_seq_key" ON "ApprovalComment"("approvalId", "seq");

-- CreateIndex
CREATE INDEX "Delegation_deputyId_idx" ON "Delegation"("deputyId");
