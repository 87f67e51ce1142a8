-- CreateTable
CREATE TABLE "LoginFailure" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "key" TEXT NOT NULL,
    "at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateIndex
CREATE INDEX "LoginFailure_key_at_idx" ON "LoginFailure"("key", "at");

