import { db } from "@/lib/db/client";
import { apiRoute } from "@/lib/http";
import { listInbox, pendingCount } from "@/lib/runs/service";

// ?count=1 answers only the number of pending approvals (the navigation badge).
export const GET = apiRoute(({ actor, query }) => {
  const { count, ...filters } = query;
  return count ? pendingCount(db(), actor) : listInbox(db(), actor, filters);
});
