-- AlterTable
ALTER TABLE "Run" ADD COLUMN     "externalId" TEXT,
ADD COLUMN     "framework" TEXT,
ADD COLUMN     "labels" TEXT,
ADD COLUMN     "metadata" TEXT,
ADD COLUMN     "runtimeTokenId" TEXT;

-- CreateTable
CREATE TABLE "RuntimeEvent" (
    "runId" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "type" TEXT NOT NULL,
    "clientId" TEXT,
    "data" TEXT NOT NULL,
    "at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "RuntimeEvent_pkey" PRIMARY KEY ("runId","seq")
);

-- CreateTable
CREATE TABLE "InterruptClaim" (
    "approvalId" TEXT NOT NULL,
    "runId" TEXT NOT NULL,
    "tokenId" TEXT NOT NULL,
    "claimedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "InterruptClaim_pkey" PRIMARY KEY ("approvalId")
);

-- CreateIndex
CREATE UNIQUE INDEX "RuntimeEvent_runId_clientId_key" ON "RuntimeEvent"("runId", "clientId");

-- CreateIndex
CREATE INDEX "InterruptClaim_runId_idx" ON "InterruptClaim"("runId");

-- CreateIndex
CREATE UNIQUE INDEX "Run_runtimeTokenId_externalId_key" ON "Run"("runtimeTokenId", "externalId");

