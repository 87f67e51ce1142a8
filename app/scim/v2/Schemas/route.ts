import { schemas } from "@/lib/scim/discovery";
import { scimRoute } from "@/lib/scim/http";
import { listResponse } from "@/lib/scim/protocol";

export const GET = scimRoute(async ({ base }) => ({ body: listResponse(schemas(base), 2, 1) }));
