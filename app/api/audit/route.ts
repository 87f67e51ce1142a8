import { db } from "@/lib/db/client";
import { apiRoute } from "@/lib/http";
import { auditPage } from "@/lib/audit/service";

export const GET = apiRoute(({ actor, query }) => auditPage(db(), actor, query));
