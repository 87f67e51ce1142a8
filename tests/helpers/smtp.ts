// A real SMTP server on localhost (the smtp-server package) that keeps every message it receives, parsed
// with mailparser, as a mail provider would receive them from the console.
import type { AddressInfo } from "node:net";
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
