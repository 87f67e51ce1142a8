-- AlterTable
ALTER TABLE "User" ADD COLUMN "disabledReason" TEXT;
ALTER TABLE "User" ADD COLUMN "disabledAt" DATETIME;
ALTER TABLE "User" ADD COLUMN "passwordKept" BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE "User" ADD COLUMN "scimExternalId" TEXT;
ALTER TABLE "User" ADD COLUMN "scimUserName" TEXT;

-- CreateTable
CREATE TABLE "ScimGroup" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "displayName" TEXT NOT NULL,
    "externalId" TEXT,
    "members" TEXT NOT NULL DEFAULT '[]',
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);

-- CreateIndex
CREATE UNIQUE INDEX "ScimGroup_displayName_key" ON "ScimGroup"("displayName");

-- CreateIndex
CREATE UNIQUE INDEX "User_scimUserName_key" ON "User"("scimUserName");
