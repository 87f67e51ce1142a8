import { NextResponse } from "next/server";
import { apiRoute } from "@/lib/http";
import { appContext } from "@/lib/context";
import { inboxPage, pendingCount } from "@/lib/services/inbox";

// ?count=1 answers only the number of pending approvals (the navigation badge). The list carries an ETag:
// a poll with If-None-Match is answered 304 while nothing pending changed.
export const GET = apiRoute(async ({ req, actor, query }) => {
  const { count, ...filters } = query;
  if (count) return pendingCount(appContext(), actor);
  const { etag, inbox } = await inboxPage(appContext(), actor, { query: filters, ifNoneMatch: req.headers.get("if-none-match") });
  const headers = { etag, "cache-control": "private, no-cache" };
  return inbox ? NextResponse.json(inbox, { headers }) : new NextResponse(null, { status: 304, headers });
});
