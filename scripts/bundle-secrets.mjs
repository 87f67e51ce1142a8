// What must never ship in the deployable bundle or the image (scripts/bundle.mjs refuses to finish with
// any of it): a file named like a secret or a database (an .env, the embedded NEXTAUTH_SECRET file, a key,
// the SQLite file, anything under data/), and a file holding a secret-looking value: a private key, or one
// of the build checkout's own secrets (its data/.nextauth-secret, the values of its .env files' secret
// keys), found byte for byte.
import { existsSync, lstatSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";

const SECRET_NAME = [
  /^\.env(\..+)?$/,
  /^\.nextauth-secret$/,
  /\.(pem|key|p12|pfx|jks)$/i,
  /^id_(rsa|dsa|ecdsa|ed25519)/,
  /^\.(npmrc|netrc|pgpass)$/,
];
// A database file of the app's own (node_modules' test fixtures aside).
const DATABASE_NAME = /\.(db|sqlite3?)(-wal|-shm|-journal)?$/i;
// The marker and a key's body after it (a library's parser names the marker alone, e.g. jose's).
const PRIVATE_KEY = /-----BEGIN ((RSA|EC|DSA|OPENSSH|ENCRYPTED) )?PRIVATE KEY-----(\\r|\\n|\r|\n|\s)+[A-Za-z0-9+/=]{60}/;
const SECRET_KEY = /SECRET|TOKEN|PASSWORD|PASSWD|API_KEY|PRIVATE/i;

/** The build checkout's secret values, which no bundle file may contain. */
export function checkoutSecrets(root) {
  const values = [];
  const embedded = path.join(root, "data", ".nextauth-secret");
  if (existsSync(embedded)) values.push(readFileSync(embedded, "utf8").trim());
  for (const f of existsSync(root) ? readdirSync(root) : []) {
    if (!/^\.env(\..+)?$/.test(f) || f.endsWith(".example")) continue;
    for (const line of readFileSync(path.join(root, f), "utf8").split("\n")) {
      const m = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/.exec(line);
      if (m && SECRET_KEY.test(m[1])) values.push(m[2].trim().replace(/^(["'])(.*)\1$/, "$2"));
    }
  }
  // Short values would match by chance (a "changeme" in some README).
  return [...new Set(values.filter((v) => v.length >= 12))];
}

/** Every offending file under dir, as "path: why". */
export function secretsIn(dir, values = []) {
  const found = [];
  const needles = values.map((v) => Buffer.from(v));
  const walk = (rel) => {
    for (const name of readdirSync(path.join(dir, rel))) {
      const r = rel ? `${rel}/${name}` : name;
      const st = lstatSync(path.join(dir, r));
      if (st.isSymbolicLink()) continue;
      const inPackages = r.split("/").includes("node_modules");
      if (st.isDirectory()) {
        if (r === "data") found.push(`${r}/: the build checkout's data folder`);
        walk(r);
        continue;
      }
      if (SECRET_NAME.some((re) => re.test(name)) && !(inPackages && /\.(pem|key)$/i.test(name))) found.push(`${r}: named like a secret`);
      else if (!inPackages && DATABASE_NAME.test(name)) found.push(`${r}: a database file`);
      const bytes = readFileSync(path.join(dir, r));
      if (!inPackages && PRIVATE_KEY.test(bytes.toString("latin1"))) found.push(`${r}: holds a private key`);
      for (const n of needles) if (bytes.includes(n)) found.push(`${r}: holds a secret of the build checkout`);
    }
  };
  walk("");
  return found;
}
