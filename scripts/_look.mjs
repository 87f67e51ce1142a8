// Manual look (not committed): a user's path at desktop and phone width, console recorded.
import { chromium } from "@playwright/test";
const base = "http://localhost:3400";
const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox", "--headless", "--disable-gpu"] });
const problems = [];
async function session(role, width) {
  const ctx = await browser.newContext({ viewport: { width, height: 900 } });
  const page = await ctx.newPage();
  page.on("console", (m) => { if (["error", "warning"].includes(m.type())) problems.push(`${role}@${width} ${page.url()}: ${m.type()} ${m.text()}`); });
  page.on("pageerror", (e) => problems.push(`${role}@${width} pageerror ${e.message}`));
  await page.goto(`${base}/login`);
  await page.getByLabel("Email").fill(`${role}@example.com`);
  await page.getByLabel("Password").fill("afk-demo-2026");
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByTestId("whoami").waitFor();
  return page;
}
const step = process.argv[2];
for (const width of [1280, 390]) {
  const rev = await session(step === "operator" ? "operator" : "reviewer", width);
  if (step !== "operator") {
    await rev.goto(`${base}/approvals`);
    await rev.waitForTimeout(1500);
    await rev.screenshot({ path: `/tmp/shots/inbox-${step}-${width}.png`, fullPage: true });
  }
  const runs = JSON.parse(process.argv[3] ?? "[]");
  for (const id of runs) {
    await rev.goto(`${base}/runs/${id}`);
    await rev.waitForTimeout(1200);
    await rev.screenshot({ path: `/tmp/shots/run-${step}-${id.slice(0, 8)}-${width}.png`, fullPage: true });
    await rev.goto(`${base}/runs/${id}/timeline?a=0&b=6`);
    await rev.waitForTimeout(1200);
    await rev.screenshot({ path: `/tmp/shots/timeline-${step}-${id.slice(0, 8)}-${width}.png`, fullPage: true });
    const text = await rev.locator("main").innerText();
    console.log(width, id.slice(0, 8), "timeline has diff:", /Messages added/.test(text), "corrupt shown:", /AgentCheckpointCorruptionError/.test(text));
  }
  await rev.context().close();
}
console.log(problems.length ? problems.join("\n") : "console: zero errors or warnings");
await browser.close();
