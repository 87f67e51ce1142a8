// Revocation ends every kind of access, in Chromium against a production build (SQLite): a reviewer
// signed in through the IdP follows a run and the inbox (EventSource, as the console's pages do); when
// they are disabled, lose their role, change groups or sign out everywhere, both streams end within
// seconds and get nothing of what happens after; the old session is refused at the next request (and
// the browser's reconnect with it), except after a group change, where it reconnects under the new
// groups. The same for an API token revoked while a client follows with it. Across two instances on
// PostgreSQL: tests/auth/revocation.test.ts.
import { type Browser, type Page, expect, test } from "@playwright/test";
import { emailOf, followInPage, followWithToken, pageLog, pageStates, signedIn, userByEmail } from "./helpers";

const WITHIN_MS = 3_000;

/** A refund run of dave's, paused on its approvals: something for the reviewer to follow. */
async function pausedRun(dave: Page): Promise<string> {
  const res = await dave.request.post("/api/runs", {
    data: { agent: "refund-desk", input: { order_id: "ORD-1001", amount_cents: 9000, reason: "Damaged" } },
  });
  expect(res.status()).toBe(201);
  const { id } = await res.json();
  await expect.poll(async () => (await (await dave.request.get(`/api/runs/${id}`)).json()).run.state, { timeout: 20_000 }).toBe("paused");
  return id;
}

/** What happens after the revocation: the followed run is cancelled (a run event and an inbox event) and another run pauses. */
async function moreEvents(alice: Page, dave: Page, runId: string) {
  expect((await alice.request.post(`/api/runs/${runId}/cancel`)).status()).toBe(202);
  await pausedRun(dave);
}

/** revoke makes the change; one that first sets something up (another browser's sign-in) calls changing() when the change itself begins. */
type Kind = {
  name: string;
  keepsAccess?: boolean;
  revoke: (c: { alice: Page; bobId: string; browser: Browser; changing: () => void }) => Promise<void>;
};

const patchBob = (alice: Page, bobId: string, data: object) => async () => {
  expect((await alice.request.patch(`/api/admin/users/${bobId}`, { data })).status()).toBe(200);
};

const kinds: Kind[] = [
  { name: "disabled by an admin", revoke: ({ alice, bobId }) => patchBob(alice, bobId, { disabled: true })() },
  { name: "given a role without the permission", revoke: ({ alice, bobId }) => patchBob(alice, bobId, { role: "operator" })() },
  { name: "moved to other groups", keepsAccess: true, revoke: ({ alice, bobId }) => patchBob(alice, bobId, { groups: ["ops"] })() },
  {
    name: "signed out (everywhere) from another browser",
    revoke: async ({ browser, changing }) => {
      const other = await signedIn(browser, "bob", "reviewer");
      changing();
      await other.getByRole("button", { name: "Sign out" }).click();
      await expect(other).toHaveURL(/\/login/);
      await other.context().close();
    },
  },
];

// The admin who changes access and the submitter whose runs make events lose nothing here: they sign in
// through the IdP once for the file (each sign-in is a few seconds of the suite).
let alice: Page;
let dave: Page;
test.beforeAll(async ({ browser }) => {
  alice = await signedIn(browser, "alice", "admin");
  dave = await signedIn(browser, "dave", "submitter");
});
test.afterAll(async () => {
  for (const p of [alice, dave]) await p?.context().close();
});

for (const kind of kinds) {
  test(`a reviewer ${kind.name}: their run and inbox streams end within seconds and get nothing after`, async ({ browser }) => {
    test.setTimeout(120_000);
    // The IdP puts bob back in his groups at every sign-in; only a disable outlives it.
    const bobId = (await userByEmail(alice, emailOf("bob")).catch(() => null))?.id;
    if (bobId) await patchBob(alice, bobId, { disabled: false })();
    const bob = await signedIn(browser, "bob", "reviewer");
    const runId = await pausedRun(dave);
    await followInPage(bob, runId);

    let t0 = Date.now();
    const changing = () => {
      t0 = Date.now();
    };
    await kind.revoke({ alice, bobId: (await userByEmail(alice, emailOf("bob"))).id, browser, changing });
    const t1 = Date.now();
    await moreEvents(alice, dave, runId);

    // Each stream's first connection ends (EventSource reports an error) within seconds of the change.
    await expect
      .poll(async () => (await pageLog(bob)).filter((e) => e.type === "error" && e.conn === 0).length, { timeout: 10_000 })
      .toBe(2);
    const log = await pageLog(bob);
    for (const s of ["run", "inbox"]) {
      const closedAt = log.find((e) => e.s === s && e.type === "error")!.at;
      console.log(
        `${kind.name}: ${s} stream closed ${closedAt - t1} ms after the request that made the change returned (${closedAt - t0} ms after it was sent)`,
      );
      expect(closedAt - t1).toBeLessThan(WITHIN_MS);
      // Nothing of what happened after the change reached the old connection.
      expect(log.filter((e) => e.s === s && e.conn === 0 && e.type !== "ready" && e.type !== "error" && e.at >= t0)).toEqual([]);
    }
    if (kind.keepsAccess) {
      // Still a reviewer: the browser reconnects, now under the new groups.
      await expect
        .poll(async () => (await pageLog(bob)).filter((e) => e.type === "ready" && e.conn === 1).length, { timeout: 10_000 })
        .toBe(2);
      expect((await bob.request.get("/api/runs")).status()).toBe(200);
    } else {
      // The old session is refused: the browser's reconnect too, so EventSource gives up.
      expect((await bob.request.get("/api/runs")).status()).toBe(401);
      await expect.poll(() => pageStates(bob), { timeout: 10_000 }).toEqual({ run: 2, inbox: 2 });
      expect((await pageLog(bob)).filter((e) => e.conn > 0 && e.type !== "error")).toEqual([]);
    }
    await bob.context().close();
  });
}

test("an API token revoked while a client follows a run and the inbox with it: both streams end within seconds", async ({
  browser,
  baseURL,
}) => {
  test.setTimeout(120_000);
  const bob = await userByEmail(alice, emailOf("bob"));
  if (bob.disabled) await patchBob(alice, bob.id, { disabled: false })();
  // bob's role may have been changed by an earlier test; his token acts as him, with his role.
  await (await signedIn(browser, "bob", "reviewer")).context().close();
  const created = await alice.request.post("/api/admin/tokens", { data: { name: "bob's CLI", role: "reviewer", userId: bob.id } });
  expect(created.status()).toBe(201);
  const { id: tokenId, token } = await created.json();
  const runId = await pausedRun(dave);
  const run = await followWithToken(`${baseURL}/api/events?run=${runId}`, token);
  const inbox = await followWithToken(`${baseURL}/api/events?inbox=1`, token);

  const t0 = Date.now();
  expect((await alice.request.delete(`/api/admin/tokens/${tokenId}`)).status()).toBe(200);
  const t1 = Date.now();
  await moreEvents(alice, dave, runId);
  for (const [s, f] of [
    ["run", run],
    ["inbox", inbox],
  ] as const) {
    const closedAt = await Promise.race([f.ended, new Promise<number>((r) => setTimeout(() => r(Number.POSITIVE_INFINITY), 10_000))]);
    console.log(
      `token revoked: ${s} stream closed ${closedAt - t1} ms after the request that made the change returned (${closedAt - t0} ms after it was sent)`,
    );
    expect(closedAt - t1).toBeLessThan(WITHIN_MS);
    expect(f.seen.filter((e) => e.at >= t0)).toEqual([]);
    await f.stop();
  }
  const again = await fetch(`${baseURL}/api/runs`, { headers: { authorization: `Bearer ${token}` } });
  expect(again.status).toBe(401);
});
