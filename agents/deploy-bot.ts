// Checks a service and deploys a version; production needs two reviewers, every deploy at least one.
import { z } from "zod";
import { defineAgent } from "../lib/agents/define.ts";
import { callColumns, once, parseJson, turnOf, inputOf } from "../lib/agents/demo-kit.ts";
import { defineTool, toolResults } from "../lib/runner/index.ts";

export const deployInput = z.object({
  service: z.string().regex(/^[a-z][a-z0-9-]{1,40}$/, "Lowercase service name"),
  version: z.string().regex(/^v?\d+\.\d+\.\d+$/, "Semantic version such as 1.4.2"),
  environment: z.enum(["staging", "production"]).meta({ labels: { staging: "Staging", production: "Production (customers see it)" } }),
});

export default defineAgent(({ db, idempotentTools }) => {
  const get_status = defineTool({
    name: "get_status",
    description: "Current version and health of a service",
    schema: z.object({ service: z.string().max(60), environment: z.string().max(40) }),
    async execute({ service, environment }) {
      const last = await db().deployment.findFirst({ where: { service, environment }, orderBy: { createdAt: "desc" } });
      return { service, environment, version: last?.version ?? "0.0.0", healthy: true };
    },
  });
  const deploy = defineTool({
    name: "deploy",
    description: "Deploy a version of a service to an environment",
    schema: deployInput,
    async execute(a, ctx) {
      const row = await once(
        () =>
          db().deployment.create({
            data: {
              ...callColumns(ctx, idempotentTools),
              service: a.service,
              version: a.version,
              environment: a.environment,
            },
          }),
        () => db().deployment.findUnique({ where: { idempotencyKey: ctx.idempotencyKey } }),
      );
      return { deployment_id: row.id, ...a, status: "deployed" };
    },
  });
  return {
    name: "deploy-bot",
    description: "Checks a service and deploys a version",
    model: "demo:deploy-bot",
    instructions: "You deploy services. Every deployment is approved by a human.",
    tools: [get_status, deploy],
    policy: [
      {
        id: "production-deploys",
        tool: "deploy",
        when: (args) => args.environment === "production",
        action: "require_approval",
        reason: "Production deployments need two reviewers",
        quorum: 2,
        priority: 10,
      },
      { id: "all-deploys", tool: "deploy", action: "require_approval", reason: "Deployments always need approval" },
    ],
    autoResume: true,
    inputSchema: deployInput,
    demo: (messages, context) => {
      const turn = turnOf(messages);
      const input = { environment: "production", ...inputOf(messages, context) } as Record<string, string>;
      if (turn === 1)
        return {
          text: `Checking ${input.service}.`,
          toolCalls: [{ id: "call_status", name: "get_status", args: { service: input.service, environment: input.environment } }],
        };
      if (turn === 2)
        return {
          text: `Deploying ${input.service} ${input.version} to ${input.environment}.`,
          toolCalls: [
            { id: "call_deploy", name: "deploy", args: { service: input.service, version: input.version, environment: input.environment } },
          ],
        };
      const r = toolResults(messages).find((m) => m.tool_call_id === "call_deploy");
      return {
        text: r?.success
          ? `Deployed ${input.service} ${input.version} to ${input.environment}.`
          : `Deployment not done: ${r ? parseJson(r.content).error : "unknown"}.`,
      };
    },
  };
});
