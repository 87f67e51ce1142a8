// Runs once when the server starts: a bad environment stops the app with one readable line; then the
// instance's background work (recovery, sweep, retention) begins.
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  await import("./lib/startup");
  const { startBackground } = await import("./lib/execution/background");
  startBackground();
}
