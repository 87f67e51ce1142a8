// Two external runtimes, one inbox, in Chromium against the production build: an OpenAI Agents JS agent and a
// LangGraph graph (tests/fixtures/runtimes, the real packages with their own scripted models) each run in a
// process of their own until they ask, park their calls through the runtime protocol and exit. Other
// processes wait for the decisions on the long-poll. A reviewer decides all five calls from /approvals
// (approves a refund, rejects the other, edits the scale-up's arguments on the card the inbox opens), and
// the waiting processes apply them: exactly the approved calls run, with exactly the approved arguments,
// once each (the tools append every execution to a file), in the processes that did not pause.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { type Browser, expect, type Page, test } from "@playwright/test";
import { executionsIn, runRuntime } from "../tests/helpers/runtime-process";
import { signInAs } from "./helpers";

async function as(browser: Browser, role: string): Promise<Page> {
  const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  await signInAs(page, role);
  return page;
}

type Started = { runId: string; interrupts: string[]; pid: number };

test("one inbox decides an Agents JS call and edits a LangGraph call; each run resumes in another process", async ({
  browser,
  baseURL,
}) => {
  // The admin (for the runtime token) and the reviewer sign in side by side; the runtimes start meanwhile.
  const [admin, reviewer] = await Promise.all([as(browser, "admin"), as(browser, "reviewer")]);
  const errors: string[] = [];
  reviewer.on("console", (m) => m.type() === "error" && errors.push(m.text()));
  const created = await admin.request.post("/api/admin/tokens", { data: { name: `runtimes-${Date.now()}`, role: "runtime" } });
  expect(created.status()).toBe(201);
  const env = { AFK_URL: baseURL ?? "", AFK_TOKEN: (await created.json()).token as string };
  const agentsDir = mkdtempSync(path.join(tmpdir(), "afk-e2e-agents-"));
  const graphDir = mkdtempSync(path.join(tmpdir(), "afk-e2e-graph-"));

  // Each runtime pauses in one process, which exits…
  const [agents, graph] = (await Promise.all([
    runRuntime("openai-agents.ts", "start", agentsDir, env),
    runRuntime("langgraph.ts", "start", graphDir, env),
  ])) as Started[];
  expect(agents.interrupts).toEqual(["call_big", "call_small"]);
  expect(graph.interrupts).toHaveLength(3);
  expect([executionsIn(agentsDir), executionsIn(graphDir)]).toEqual([[], []]);
  // …and another waits on the long-poll before anyone decides.
  const agentsDone = runRuntime("openai-agents.ts", "resume", agentsDir, env);
  const graphDone = runRuntime("langgraph.ts", "resume", graphDir, env);

  await reviewer.goto("/approvals");
  // A row by its arguments' summary, which no other run's calls share.
  const ROWS: Record<string, string> = {
    "A-1": "Order id: A-1 · Amount cents: 250000",
    "A-2": "Order id: A-2 · Amount cents: 900",
    scale_service: "Service: checkout · Replicas: 12",
    page_oncall: "Team: payments",
    drop_cache: "Region: eu",
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

  // LangGraph: e opens the scale-up on its run page with the editor open; 12 replicas become 6.
  await current("scale_service");
  await reviewer.keyboard.press("e");
  await expect(reviewer).toHaveURL(new RegExp(`/runs/${graph.runId}\\?edit=1#approval-`));
  const card = reviewer.getByTestId("approval-scale_service");
  // The graph gave no schema of the arguments, so the card offers them as JSON straight away.
  await expect(card.getByLabel("Edit as JSON")).toHaveCount(0);
  const json = card.getByLabel("Arguments (JSON)");
  await json.fill(JSON.stringify({ service: "checkout", replicas: 6 }));
  await expect(card.getByRole("list", { name: "Changes to the arguments" })).toContainText("Replicas: 12 → 6");
  await card.getByRole("button", { name: "Approve with these arguments" }).click();
  await expect(reviewer.getByTestId("approval-status-scale_service")).toHaveText("approved");
  await reviewer.goto("/approvals");
  await current("page_oncall");
  await reviewer.keyboard.press("a");
  await expect(row("page_oncall")).toBeHidden();
  await current("drop_cache");
  await reviewer.keyboard.press("r");
  await reviewer.getByLabel(/Reason for rejecting 1/).fill("Not during the sale");
  await reviewer.getByLabel(/Reason for rejecting 1/).press("Enter");
  await expect(row("drop_cache")).toBeHidden();

  // The waiting processes (not the ones that paused) applied the decisions and ran to the end.
  const a = (await agentsDone) as { final: string; pid: number };
  const g = (await graphDone) as { results: string[]; pid: number };
  expect(a.final).toBe("Done: 2 results");
  expect(g.results).toEqual(["scale_service done", "page_oncall done", "rejected: Not during the sale"]);
  expect([a.pid, g.pid]).not.toContain(agents.pid);
  expect([a.pid, g.pid]).not.toContain(graph.pid);
  // Exactly the approved calls, with exactly the approved arguments, once each, in the resuming process.
  expect(executionsIn(agentsDir).map((e) => [e.order_id, e.amount_cents, e.pid])).toEqual([["A-2", 900, a.pid]]);
  expect(executionsIn(graphDir).map((e) => [e.name, e.args, e.pid])).toEqual([
    ["scale_service", { service: "checkout", replicas: 6 }, g.pid],
    ["page_oncall", { team: "payments" }, g.pid],
  ]);
  for (const id of [agents.runId, graph.runId])
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
