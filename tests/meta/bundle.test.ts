// The deployable bundle (scripts/bundle.mjs) before anything is built: its scripts compile without Next
// (an ESM `import "next/server"` from the bundle's CLI failed with ERR_MODULE_NOT_FOUND on its first start),
// and its secret scan finds what must never ship. CI's bundle step runs the same scan on the real folder.
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
// @ts-expect-error: plain ESM scripts without type declarations
import { compileScripts } from "../../scripts/bundle-compile.mjs";
// @ts-expect-error: plain ESM scripts without type declarations
import { checkoutSecrets, secretsIn } from "../../scripts/bundle-secrets.mjs";

const root = path.resolve(import.meta.dirname, "../..");

describe("the bundle", () => {
  it("compiles the worker, the seed and the CLI with nothing of Next in them", async () => {
    await expect(compileScripts(root, mkdtempSync(path.join(tmpdir(), "afk-compile-")), { write: false })).resolves.toBeUndefined();
  });

  it("the compile refuses a script that reaches Next, naming the importer", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "afk-compile-"));
    const fake = path.join(dir, "scripts");
    mkdirSync(fake);
    for (const f of ["worker.ts", "seed.ts", "afk.ts"])
      writeFileSync(path.join(fake, f), 'import { NextResponse } from "next/server";\nconsole.log(NextResponse);\n');
    await expect(compileScripts(dir, path.join(dir, "out"), { write: false })).rejects.toThrow(/next\/server is imported by .*worker\.ts/);
  });

  it("finds files named like secrets, the data folder, databases, private keys and the build checkout's secrets", () => {
    const checkout = mkdtempSync(path.join(tmpdir(), "afk-checkout-"));
    mkdirSync(path.join(checkout, "data"));
    writeFileSync(path.join(checkout, "data", ".nextauth-secret"), "the-checkout-secret-0123456789");
    writeFileSync(
      path.join(checkout, ".env"),
      'NEXTAUTH_URL=http://localhost:3000\nOPENAI_API_KEY="sk-the-checkout-key-abcdef"\nSHORT_TOKEN=abc\n',
    );
    const secrets = checkoutSecrets(checkout);
    expect(secrets.sort()).toEqual(["sk-the-checkout-key-abcdef", "the-checkout-secret-0123456789"]);

    const bundle = mkdtempSync(path.join(tmpdir(), "afk-bundle-"));
    const put = (rel: string, text: string) => {
      mkdirSync(path.dirname(path.join(bundle, rel)), { recursive: true });
      writeFileSync(path.join(bundle, rel), text);
    };
    put("server.js", "console.log('fine')");
    put(".next/server/chunks/jose.js", 'if (e.indexOf("-----BEGIN PRIVATE KEY-----") !== 0) throw 1');
    put("node_modules/pg/test.db", "a package's fixture");
    expect(secretsIn(bundle, secrets)).toEqual([]);

    put("data/.nextauth-secret", "x");
    put(".env.production", "A=1");
    put("prisma/afk.db", "SQLite format 3");
    put("scripts/key.txt", `-----BEGIN RSA PRIVATE KEY-----\n${"A".repeat(64)}\n`);
    put(".next/server/chunks/a.js", "const s = 'sk-the-checkout-key-abcdef';");
    expect(secretsIn(bundle, secrets).sort()).toEqual([
      ".env.production: named like a secret",
      ".next/server/chunks/a.js: holds a secret of the build checkout",
      "data/.nextauth-secret: named like a secret",
      "data/: the build checkout's data folder",
      "prisma/afk.db: a database file",
      "scripts/key.txt: holds a private key",
    ]);
  });
});
