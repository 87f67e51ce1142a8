import { apiRoute } from "@/lib/http";
import { UnauthorizedError } from "@/lib/auth/errors";
import { appContext } from "@/lib/context";
import { agentCatalog } from "@/lib/runs/service";

export const GET = apiRoute(async ({ actor }) => {
  if (!actor) throw new UnauthorizedError();
  return { agents: agentCatalog(appContext()) };
});
