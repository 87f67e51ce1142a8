// Structured JSON logs, one object per line, with run_id and phase where there is one.
import { env } from "./env.ts";

const LEVELS = { debug: 10, info: 20, warn: 30, error: 40 } as const;
type Level = keyof typeof LEVELS;

// The logger must work while the environment itself is invalid (that is one of the things it reports).
const threshold = () => {
  try {
    return LEVELS[env().LOG_LEVEL];
  } catch {
    return LEVELS.info;
  }
};

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
