// Runs once when the server starts: a bad environment stops the app with one readable line.
export async function register() {
  if (process.env.NEXT_RUNTIME === "nodejs") await import("./lib/startup");
}
