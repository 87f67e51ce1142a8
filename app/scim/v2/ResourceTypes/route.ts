import { resourceTypes } from "@/lib/scim/discovery";
import { scimRoute } from "@/lib/scim/http";
import { listResponse } from "@/lib/scim/protocol";

export const GET = scimRoute(async ({ base }) => ({ body: listResponse(resourceTypes(base), 2, 1) }));
