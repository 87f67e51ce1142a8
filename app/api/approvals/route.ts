import { NextResponse } from "next/server";
import { db } from "@/lib/db/client";
import { apiRoute } from "@/lib/http";
import { inboxPage, pendingCount } from "@/lib/runs/service";

// ?count=1 answers only the number of pending approvals (the navigation badge). The list carries an ETag:
// a poll with If-None-Match is answered 304 while nothing pending changed.
export const GET = apiRoute(async ({ req, actor, query }) => {
  const { count, ...filters } = query;
  if (count) return pendingCount(db(), actor);
  const { etag, inbox } = await inboxPage(db(), actor, filters, req.headers.get("if-none-match"));
  const headers = { etag, "cache-control": "private, no-cache" };
  return inbox ? NextResponse.json(inbox, { headers }) : new NextResponse(null, { status: 304, headers });
});
