-- AlterTable
ALTER TABLE "InterruptClaim" ADD COLUMN     "claimant" TEXT NOT NULL DEFAULT '',
ADD COLUMN     "leaseUntil" TIMESTAMP(3);
