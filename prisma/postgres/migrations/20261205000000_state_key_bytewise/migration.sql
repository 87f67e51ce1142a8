-- Store keys compare byte by byte (as on SQLite), whatever the database collation: a key-prefix
-- listing is then a range scan of the primary key instead of a LIKE filter over every row of the
-- thread (a 1,000-step run has 7,000). The Prisma schema cannot express a column collation, and
-- migrate diff does not see one, so the models stay identical across providers.
ALTER TABLE "StateEntry" ALTER COLUMN "key" TYPE TEXT COLLATE "C";
