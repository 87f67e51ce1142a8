import { EnvError, env } from "./env.ts";

try {
  env();
} catch (e) {
  if (!(e instanceof EnvError)) throw e;
  console.error(e.message);
  process.exit(1);
}
