// Prisma's error codes, read here and nowhere else: callers ask what happened, not which code it was.

const codeOf = (e: unknown) => (e as { code?: string } | null)?.code;

/** A unique constraint refused the write (P2002): a row with that key is already there. */
export const isUniqueViolation = (e: unknown) => codeOf(e) === "P2002";

/**
 * The interactive transaction expired (P2028): the process stalled or the database was too slow past the
 * transaction's timeout, and everything in it rolled back.
 */
export const isExpiredTransaction = (e: unknown) => codeOf(e) === "P2028";
