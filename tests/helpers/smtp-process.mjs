// A real SMTP server in a process of its own (smtp-server), printing each message it receives as one JSON
// line {to, subject, text, html, at}; its first line is {port}. Used where the console's own event loop
// must not also serve the mail (benchmarks).
import { simpleParser } from "mailparser";
import { SMTPServer } from "smtp-server";

const server = new SMTPServer({
  authOptional: true,
  allowInsecureAuth: true,
  disabledCommands: ["STARTTLS"],
  logger: false,
  onAuth: (auth, _s, cb) => cb(null, { user: auth.username }),
  onData(stream, session, cb) {
    const at = Date.now();
    simpleParser(stream)
      .then((m) => {
        process.stdout.write(
          `${JSON.stringify({ to: session.envelope.rcptTo.map((r) => r.address), subject: m.subject, text: m.text, html: m.html, at })}\n`,
        );
        cb();
      })
      .catch(cb);
  },
});
server.listen(0, "127.0.0.1", () => process.stdout.write(`${JSON.stringify({ port: server.server.address().port })}\n`));
process.on("SIGTERM", () => server.close(() => process.exit(0)));
