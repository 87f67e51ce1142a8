-- AlterTable
ALTER TABLE "ApiToken" ADD COLUMN     "userId" TEXT;

-- AlterTable
ALTER TABLE "Deployment" ADD COLUMN     "idempotencyKey" TEXT;

-- AlterTable
ALTER TABLE "OutboxMessage" ADD COLUMN     "idempotencyKey" TEXT;

-- AlterTable
ALTER TABLE "Refund" ADD COLUMN     "idempotencyKey" TEXT;

-- AlterTable
ALTER TABLE "Run" ADD COLUMN     "corruptKey" TEXT,
ADD COLUMN     "idempotencyKey" TEXT,
ADD COLUMN     "leaseEpoch" INTEGER NOT NULL DEFAULT 0;

-- CreateIndex
CREATE UNIQUE INDEX "Deployment_idempotencyKey_key" ON "Deployment"("idempotencyKey");

-- CreateIndex
CREATE UNIQUE INDEX "OutboxMessage_idempotencyKey_key" ON "OutboxMessage"("idempotencyKey");

-- CreateIndex
CREATE UNIQUE INDEX "Refund_idempotencyKey_key" ON "Refund"("idempotencyKey");

-- CreateIndex
CREATE UNIQUE INDEX "Run_idempotencyKey_key" ON "Run"("idempotencyKey");
