// Cursor pages: a query asks for take + 1 rows; the extra row only says whether there is a next page.
export function cursorPage<T>(rows: T[], take: number, cursorOf: (row: T) => string): { page: T[]; nextCursor: string | null } {
  const page = rows.slice(0, take);
  return { page, nextCursor: rows.length > take ? cursorOf(page[page.length - 1]) : null };
}
