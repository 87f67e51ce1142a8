// Structured JSON logs, one object per line, with run_id and phase where there is one.
const LEVELS = { debug: 10, info: 20, warn: 30, error: 40 } as const;
type Level = keyof typeof LEVELS;

const threshold = () => LEVELS[(process.env.LOG_LEVEL as Level) in LEVELS ? (process.env.LOG_LEVEL as Level) : "info"];

function write(level: Level, msg: string, fields: Record<string, unknown>) {
  if (LEVELS[level] < threshold()) return;
  const line = JSON.stringify({ level, time: new Date().toISOString(), msg, ...fields });
  if (level === "error" || level === "warn") console.error(line);
  else console.log(line);
}

export const log = {
  debug: (msg: string, f: Record<string, unknown> = {}) => write("debug", msg, f),
  info: (msg: string, f: Record<string, unknown> = {}) => write("info", msg, f),
  warn: (msg: string, f: Record<string, unknown> = {}) => write("warn", msg, f),
  error: (msg: string, f: Record<string, unknown> = {}) => write("error", msg, f),
};
