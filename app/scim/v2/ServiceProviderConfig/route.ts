import { serviceProviderConfig } from "@/lib/scim/discovery";
import { scimRoute } from "@/lib/scim/http";

export const GET = scimRoute(async ({ base }) => ({ body: serviceProviderConfig(base) }));
