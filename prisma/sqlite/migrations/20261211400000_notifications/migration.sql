-- CreateTable
CREATE TABLE "Notification" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "approvalId" TEXT NOT NULL,
    "runId" TEXT NOT NULL,
    "threadId" TEXT NOT NULL,
    "agent" TEXT NOT NULL,
    "tool" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "channel" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "seq" INTEGER NOT NULL DEFAULT 0,
    "status" TEXT NOT NULL,
    "dueAt" DATETIME NOT NULL,
    "requestedAt" DATETIME NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "lastError" TEXT,
    "claimToken" TEXT,
    "claimUntil" DATETIME,
    "messageKey" TEXT,
    "sentRef" TEXT,
    "sentAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "NotifyPreference" (
    "userId" TEXT NOT NULL PRIMARY KEY,
    "channels" TEXT NOT NULL DEFAULT '["email"]',
    "digestMinutes" INTEGER NOT NULL DEFAULT 0,
    "quietStart" TEXT,
    "quietEnd" TEXT,
    "timeZone" TEXT NOT NULL DEFAULT 'UTC',
    "updatedAt" DATETIME NOT NULL
);

-- CreateIndex
CREATE INDEX "Notification_status_dueAt_idx" ON "Notification"("status", "dueAt");

-- CreateIndex
CREATE INDEX "Notification_userId_channel_sentAt_idx" ON "Notification"("userId", "channel", "sentAt");

-- CreateIndex
CREATE INDEX "Notification_createdAt_idx" ON "Notification"("createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "Notification_approvalId_userId_channel_kind_seq_key" ON "Notification"("approvalId", "userId", "channel", "kind", "seq");

