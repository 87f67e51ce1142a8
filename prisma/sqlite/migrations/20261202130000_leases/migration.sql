-- AlterTable
ALTER TABLE "Run" ADD COLUMN "leaseOwner" TEXT;
ALTER TABLE "Run" ADD COLUMN "leaseUntilMs" BIGINT;
ALTER TABLE "Run" ADD COLUMN "cancelRequested" BOOLEAN NOT NULL DEFAULT false;

-- CreateIndex
CREATE INDEX "Run_state_leaseUntilMs_idx" ON "Run"("state", "leaseUntilMs");
