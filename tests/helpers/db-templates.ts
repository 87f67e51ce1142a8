// vitest's globalSetup: the databases every scratch database of this run is copied from, migrated once
// with the committed migrations (tests/helpers/scratch.ts), and dropped at the end.
import { migratedTemplates } from "./scratch";

export default async function setup() {
  return migratedTemplates(process.env.TEST_POSTGRES_URL);
}
