// Four external runtimes, one inbox, in Chromium against the production build: an OpenAI Agents JS agent, a
// LangGraph graph, a Vercel AI SDK call and an MCP server's questions (tests/fixtures/runtimes, the real
// packages with their own scripted models) each run in a process of their own until they ask and park
// their requests through the runtime protocol; the first three exit, and other processes wait for the
// decisions on the long-poll. Each card offers only the decisions its runtime can apply. A reviewer decides
// all seven calls from /approvals (approves a refund, rejects the other, edits the scale-up's arguments on
// the card the inbox opens) and answers and declines the two questions, and the waiting processes apply
// them: exactly the approved calls run, with exactly the approved arguments, once each (the tools append
// every execution to a file), in the processes that did not pause.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { type Browser, expect, type Page, test } from "@playwright/test";
import { executionsIn, runRuntime } from "../tests/helpers/runtime-process";
import { signInAs, closeContextsAfterEach } from "./helpers";

closeContextsAfterEach();

async function as(browser: Browser, role: string): Promise<Page> {
  const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  await signInAs(page, role);
  return page;
}

type Started = { runId: string; interrupts: string[]; pid: number };

test("one inbox decides Agents JS and AI SDK calls and edits a LangGraph call; each run resumes in another process", async ({
  browser,
  baseURL,
}) => {
  // Eight processes of four runtimes start, pause, wait and resume: more than the default minute on a busy machine.
  test.setTimeout(180_000);
  // The admin (for the runtime token) and the reviewer sign in side by side; the runtimes start meanwhile.
  const [admin, reviewer] = await Promise.all([as(browser, "admin"), as(browser, "reviewer")]);
  const errors: string[] = [];
  reviewer.on("console", (m) => m.type() === "error" && errors.push(m.text()));
  const created = await admin.request.post("/api/admin/tokens", { data: { name: `runtimes-${Date.now()}`, role: "runtime" } });
  expect(created.status()).toBe(201);
  const env = { AFK_URL: baseURL ?? "", AFK_TOKEN: (await created.json()).token as string };
  const agentsDir = mkdtempSync(path.join(tmpdir(), "afk-e2e-agents-"));
  const graphDir = mkdtempSync(path.join(tmpdir(), "afk-e2e-graph-"));
  const aiDir = mkdtempSync(path.join(tmpdir(), "afk-e2e-ai-"));
  const mcpDir = mkdtempSync(path.join(tmpdir(), "afk-e2e-mcp-"));

  // Each runtime pauses in one process, which exits…
  const [agents, graph, ai] = (await Promise.all([
    runRuntime("openai-agents.ts", "start", agentsDir, env),
    runRuntime("langgraph.ts", "start", graphDir, env),
    runRuntime("ai-sdk.ts", "start", aiDir, env),
  ])) as Started[];
  expect(agents.interrupts).toEqual(["call_big", "call_small"]);
  expect(graph.interrupts).toHaveLength(3);
  expect(ai.interrupts).toHaveLength(2);
  expect([executionsIn(agentsDir), executionsIn(graphDir), executionsIn(aiDir)]).toEqual([[], [], []]);
  // …and another waits on the long-poll before anyone decides.
  const agentsDone = runRuntime("openai-agents.ts", "resume", agentsDir, env);
  const graphDone = runRuntime("langgraph.ts", "resume", graphDir, env);
  const aiDone = runRuntime("ai-sdk.ts", "resume", aiDir, env);
  // An MCP client with the elicitation bridge: its server's tool asks two questions and waits for them.
  const mcpDone = runRuntime("mcp-elicitation.ts", "run", mcpDir, env);

  // Each card offers only the decisions its runtime can apply: Agents JS and the AI SDK cannot run edited
  // arguments nor take a response in place of the call; LangGraph's HITL request allows an edit.
  for (const [runId, tool, buttons] of [
    [agents.runId, "issue_refund", ["Approve", "Reject…"]],
    [ai.runId, "issue_refund", ["Approve", "Reject…"]],
    [graph.runId, "scale_service", ["Approve", "Reject…", "Edit arguments…"]],
  ] as const) {
    await reviewer.goto(`/runs/${runId}`);
    // The decision's buttons (the hand-off's Comment and Reassign… below them are every card's).
    const decision = reviewer.getByTestId(`approval-${tool}`).first().locator('button:not([data-testid="handoff"] button)');
    await expect(decision).toHaveText([...buttons]);
  }

  await reviewer.goto("/approvals");
  // A row by its arguments' summary, which no other run's calls share.
  const ROWS: Record<string, string> = {
    "A-1": "Order id: A-1 · Amount cents: 250000",
    "A-2": "Order id: A-2 · Amount cents: 900",
    scale_service: "Service: checkout · Replicas: 12",
    page_oncall: "Team: payments",
    drop_cache: "Region: eu",
    "B-1": "Order id: B-1 · Amount cents: 250000",
    "B-2": "Order id: B-2 · Amount cents: 900",
  };
  const row = (name: string) => reviewer.getByRole("row").filter({ hasText: ROWS[name] });
  const current = async (text: string) => {
    await row(text).locator("td").nth(1).click();
    await expect(row(text)).toHaveAttribute("aria-current", "true");
  };
  for (const name of Object.keys(ROWS)) await expect(row(name)).toHaveCount(1);

  // Agents JS: the small refund approved with a, the big one rejected with r and a reason.
  await current("A-2");
  await reviewer.keyboard.press("a");
  await expect(row("A-2")).toBeHidden();
  await current("A-1");
  await reviewer.keyboard.press("r");
  await reviewer.getByLabel(/Reason for rejecting 1/).fill("Too large without a manager");
  await reviewer.getByLabel(/Reason for rejecting 1/).press("Enter");
  await expect(row("A-1")).toBeHidden();
  // The AI SDK's the same way.
  await current("B-2");
  await reviewer.keyboard.press("a");
  await expect(row("B-2")).toBeHidden();
  await current("B-1");
  await reviewer.keyboard.press("r");
  await reviewer.getByLabel(/Reason for rejecting 1/).fill("Too large");
  await reviewer.getByLabel(/Reason for rejecting 1/).press("Enter");
  await expect(row("B-1")).toBeHidden();

  // LangGraph: e opens the scale-up's editor in the inbox's preview pane; 12 replicas become 6.
  await current("scale_service");
  await reviewer.keyboard.press("e");
  const card = reviewer.getByTestId("preview").getByTestId("approval-scale_service");
  await expect(card.getByRole("button", { name: "Approve with these arguments" })).toBeVisible();
  expect(new URL(reviewer.url()).pathname).toBe("/approvals");
  // The graph gave no schema of the arguments, so the card offers them as JSON straight away.
  await expect(card.getByLabel("Edit as JSON")).toHaveCount(0);
  const json = card.getByLabel("Arguments (JSON)");
  await json.fill(JSON.stringify({ service: "checkout", replicas: 6 }));
  await expect(card.getByRole("list", { name: "Changes to the arguments" })).toContainText("Replicas: 12 → 6");
  await card.getByRole("button", { name: "Approve with these arguments" }).click();
  await expect(reviewer.getByTestId("preview-decided")).toContainText("scale_service");
  await reviewer.goto("/approvals");
  await current("page_oncall");
  await reviewer.keyboard.press("a");
  await expect(row("page_oncall")).toBeHidden();
  await current("drop_cache");
  await reviewer.keyboard.press("r");
  await reviewer.getByLabel(/Reason for rejecting 1/).fill("Not during the sale");
  await reviewer.getByLabel(/Reason for rejecting 1/).press("Enter");
  await expect(row("drop_cache")).toBeHidden();

  // MCP elicitation: each question on its card, with only an answer or a decline to give; the plan answered
  // in the form built from the server's schema, the deletion declined.
  const question = async (text: string) => {
    await reviewer.goto("/approvals");
    const r = reviewer.getByRole("row").filter({ hasText: text });
    await r.locator("td").nth(1).click();
    await reviewer.keyboard.press("o");
    const card = reviewer.locator('[data-testid^="question-"]').filter({ hasText: text });
    await expect(card.getByRole("button")).toHaveText(["Send answer", "Decline…"]);
    return card;
  };
  const plan = await question("Which plan should the account get?");
  await plan.getByRole("combobox").selectOption({ label: "pro" });
  await plan.getByRole("button", { name: "Send answer" }).click();
  await expect(plan.getByTestId("question-outcome")).toContainText("answered");
  const wipe = await question("Delete the old account?");
  await wipe.getByRole("button", { name: "Decline…" }).click();
  await wipe.getByRole("form", { name: "Decline" }).getByRole("textbox").fill("Keep it for now");
  await wipe.getByRole("button", { name: "Decline", exact: true }).click();
  const m = (await mcpDone) as { result: string };
  expect(m.result).toBe("plan accept, wipe decline");
  expect(executionsIn(mcpDir)).toEqual([{ plan: { action: "accept", content: { plan: "pro" } }, wipe: { action: "decline" } }]);

  // The waiting processes (not the ones that paused) applied the decisions and ran to the end.
  const a = (await agentsDone) as { final: string; pid: number };
  const g = (await graphDone) as { results: string[]; pid: number };
  const s = (await aiDone) as { final: string; denied: number; pid: number };
  expect(a.final).toBe("Done: 2 results");
  expect([s.final, s.denied]).toEqual(["Done: 2 results", 1]);
  expect(executionsIn(aiDir).map((e) => [e.order_id, e.pid])).toEqual([["B-2", s.pid]]);
  expect(g.results).toEqual(["scale_service done", "page_oncall done", "rejected: Not during the sale"]);
  expect([a.pid, g.pid]).not.toContain(agents.pid);
  expect([a.pid, g.pid]).not.toContain(graph.pid);
  // Exactly the approved calls, with exactly the approved arguments, once each, in the resuming process.
  expect(executionsIn(agentsDir).map((e) => [e.order_id, e.amount_cents, e.pid])).toEqual([["A-2", 900, a.pid]]);
  expect(executionsIn(graphDir).map((e) => [e.name, e.args, e.pid])).toEqual([
    ["scale_service", { service: "checkout", replicas: 6 }, g.pid],
    ["page_oncall", { team: "payments" }, g.pid],
  ]);
  for (const id of [agents.runId, graph.runId, ai.runId])
    expect((await (await reviewer.request.get(`/api/runs/${id}`)).json()).run.state).toBe("completed");
  // The LangGraph run's timeline: its registration, the three calls parked, decided and claimed, its end.
  await reviewer.goto(`/runs/${graph.runId}/timeline`);
  await expect(reviewer.getByTestId("external-timeline")).toContainText("langgraph");
  await expect(reviewer.getByRole("list", { name: "Checkpoints" }).getByTestId("checkpoint-phase")).toHaveText([
    "run_started",
    ...["paused", "decided", "resumed"].flatMap((phase) => [phase, phase, phase]),
    "run_terminal",
  ]);
  expect(errors).toEqual([]);
});
