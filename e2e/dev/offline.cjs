// Preloaded into the e2e dev server (NODE_OPTIONS --require): keeps `next dev` off the internet. When a
// browser connects, next dev asks registry.npmjs.org for the newest Next.js (the dev overlay's version
// badge; no setting turns it off, and it awaits that answer before it syncs the overlay). A fetch to any
// host but this machine is refused at once; Next ignores the failure and shows no version badge.
const local = new Set(["localhost", "127.0.0.1", "[::1]"]);
const realFetch = globalThis.fetch;
globalThis.fetch = function offlineFetch(input, init) {
  const url = new URL(typeof input === "string" || input instanceof URL ? input : input.url);
  if (!local.has(url.hostname)) return Promise.reject(new TypeError(`offline: the e2e dev server does not fetch ${url.origin}`));
  return realFetch(input, init);
};
