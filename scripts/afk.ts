// The AFK Console from a terminal (lib/cli/): `npm run afk -- help` lists the commands. Through a server's
// REST API with AFK_URL + AFK_TOKEN, or on DATABASE_URL as a named user (--as <email> or AFK_ACTOR).
import { cliEnv } from "../lib/env.ts";
import { main } from "../lib/cli/main.ts";

// The executor's info lines (run stopped, …) are for servers; here they would mix into the output.
process.env.LOG_LEVEL ??= "warn";
const stdin = async () => {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString("utf8");
};
const io = { out: (s: string) => console.log(s), err: (s: string) => console.error(s), stdin };
let code: number;
try {
  code = await main(process.argv.slice(2), cliEnv(), io);
} catch (e) {
  io.err(`afk: ${e instanceof Error ? e.message : String(e)}`);
  code = 1;
}
// Whatever still holds the event loop (a pool's idle timer) has nothing left to do for a finished command.
process.exit(code);
