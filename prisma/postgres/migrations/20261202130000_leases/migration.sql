-- AlterTable
ALTER TABLE "Run" ADD COLUMN     "cancelRequested" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "leaseOwner" TEXT,
ADD COLUMN     "leaseUntilMs" BIGINT;

-- CreateIndex
CREATE INDEX "Run_state_leaseUntilMs_idx" ON "Run"("state", "leaseUntilMs");

