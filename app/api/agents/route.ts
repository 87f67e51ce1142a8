import { apiRoute } from "@/lib/http";
import { appContext } from "@/lib/context";
import { agentCatalog } from "@/lib/services/catalog";

export const GET = apiRoute(async ({ actor }) => ({ agents: agentCatalog(appContext(), actor) }));
