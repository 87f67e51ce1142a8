-- AlterTable
ALTER TABLE "Run" ADD COLUMN "externalId" TEXT;
ALTER TABLE "Run" ADD COLUMN "framework" TEXT;
ALTER TABLE "Run" ADD COLUMN "labels" TEXT;
ALTER TABLE "Run" ADD COLUMN "metadata" TEXT;
ALTER TABLE "Run" ADD COLUMN "runtimeTokenId" TEXT;

-- CreateTable
CREATE TABLE "RuntimeEvent" (
    "runId" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "type" TEXT NOT NULL,
    "clientId" TEXT,
    "data" TEXT NOT NULL,
    "at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,

    PRIMARY KEY ("runId", "seq")
);

-- CreateTable
CREATE TABLE "InterruptClaim" (
    "approvalId" TEXT NOT NULL PRIMARY KEY,
    "runId" TEXT NOT NULL,
    "tokenId" TEXT NOT NULL,
    "claimedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateIndex
CREATE UNIQUE INDEX "RuntimeEvent_runId_clientId_key" ON "RuntimeEvent"("runId", "clientId");

-- CreateIndex
CREATE INDEX "InterruptClaim_runId_idx" ON "InterruptClaim"("runId");

-- CreateIndex
CREATE UNIQUE INDEX "Run_runtimeTokenId_externalId_key" ON "Run"("runtimeTokenId", "externalId");

