// A real SMTP server on localhost (the smtp-server package) that keeps every message it receives, parsed
// with mailparser, as a mail provider would receive them from the console.
import { spawn } from "node:child_process";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { createInterface } from "node:readline";
import { type ParsedMail, simpleParser } from "mailparser";
import { SMTPServer } from "smtp-server";

export type Received = { to: string[]; mail: ParsedMail; at: number };

export async function smtpServer(opts: { failFirst?: number } = {}) {
  const received: Received[] = [];
  let refuse = opts.failFirst ?? 0;
  const server = new SMTPServer({
    authOptional: true,
    allowInsecureAuth: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    // The console keeps pooled connections open: closing does not wait for them.
    closeTimeout: 100,
    onAuth(auth, _session, cb) {
      cb(null, { user: auth.username });
    },
    onData(stream, session, cb) {
      if (refuse > 0) {
        refuse--;
        stream.resume();
        stream.on("end", () => cb(Object.assign(new Error("try again later"), { responseCode: 451 })));
        return;
      }
      simpleParser(stream)
        .then((mail) => {
          received.push({ to: session.envelope.rcptTo.map((r) => r.address), mail, at: Date.now() });
          cb();
        })
        .catch(cb);
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    to: (email: string) => received.filter((r) => r.to.includes(email)),
    async waitFor(check: () => boolean, ms = 10_000) {
      const until = Date.now() + ms;
      while (!check()) {
        if (Date.now() > until) throw new Error(`SMTP: not received within ${ms} ms (${received.length} messages)`);
        await new Promise((r) => setTimeout(r, 25));
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The same server in a process of its own (tests/helpers/smtp-process.mjs): the console's event loop does not serve the mail. */
export async function smtpProcess() {
  const child = spawn(process.execPath, [path.join(import.meta.dirname, "smtp-process.mjs")], { stdio: ["ignore", "pipe", "inherit"] });
  const received: { to: string[]; mail: { subject?: string; text?: string; html?: string | false }; at: number }[] = [];
  const port = await new Promise<number>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout });
    lines.on("line", (line) => {
      const m = JSON.parse(line);
      if (m.port) resolve(m.port);
      else received.push({ to: m.to, mail: { subject: m.subject, text: m.text, html: m.html }, at: m.at });
    });
    child.once("exit", (code) => reject(new Error(`SMTP process exited (${code})`)));
  });
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    async waitFor(check: () => boolean, ms = 10_000) {
      const until = Date.now() + ms;
      while (!check()) {
        if (Date.now() > until) throw new Error(`SMTP: not received within ${ms} ms (${received.length} messages)`);
        await new Promise((r) => setTimeout(r, 25));
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}
