-- AlterTable
ALTER TABLE "User" ADD COLUMN     "groups" TEXT NOT NULL DEFAULT '[]';
