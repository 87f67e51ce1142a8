import { apiRoute } from "@/lib/http";
import { appContext } from "@/lib/context";
import { auditPage } from "@/lib/services/audit";

export const GET = apiRoute(({ actor, query }) => auditPage(appContext(), actor, { query }));
