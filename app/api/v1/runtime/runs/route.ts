import { appContext } from "@/lib/context";
import { runtimeRoute } from "@/lib/http";
import { registerRun } from "@/lib/services/runtime-protocol";

export const POST = runtimeRoute(async ({ runtime, body }) => registerRun(appContext(), runtime, { body: await body() }));
