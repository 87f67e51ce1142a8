-- AlterTable
ALTER TABLE "InterruptClaim" ADD COLUMN "claimant" TEXT NOT NULL DEFAULT '';
ALTER TABLE "InterruptClaim" ADD COLUMN "leaseUntil" DATETIME;
