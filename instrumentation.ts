// Runs once when the server starts: a bad environment stops the app with one readable line; tracing starts
// when an OTLP endpoint is set (before anything opens the database, whose statements it traces); then the
// instance's background work (recovery, sweep, retention) begins.
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  await import("./lib/startup");
  const [{ env }, { startTracing }] = await Promise.all([import("./lib/env"), import("./lib/telemetry/sdk")]);
  await startTracing("afk-console", env());
  // AFK_BOOTSTRAP_ADMIN_EMAIL: the first admin of a new deployment (README "Deploy").
  await (await import("./lib/services/first-admin")).bootstrapAtStart();
  const { startBackground } = await import("./lib/ops/background");
  startBackground();
}
