-- AlterTable
ALTER TABLE "Run" ADD COLUMN "prunedAt" DATETIME;
ALTER TABLE "Run" ADD COLUMN "prunedCheckpoints" INTEGER NOT NULL DEFAULT 0;

-- CreateIndex
CREATE INDEX "Run_finishedAt_idx" ON "Run"("finishedAt");
