import { apiBase } from '@/lib/config';
import { getToken } from '@/lib/auth';
import type { LogLine } from '@/lib/api/types';

/** Client logging: to the console and shipped to POST {api}/logger {message, level}, with the
 *  session's token when there is one (a member's lines count against their own allowance, not the
 *  tighter one all anonymous callers of an address share); a failed shipment is only logged locally. Identical lines within 1000 ms are throttled after 5 repeats
 * , then summarised once the burst ends. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export const LOG_THROTTLE_MS = 1000;
export const LOG_THROTTLE_MIN = 5;

let last: { key: string; at: number; count: number; suppressed: number } | null = null;
let flushTimer: ReturnType<typeof setTimeout> | null = null;
let shipper: (level: LogLevel, message: string) => void = defaultShip;

function defaultShip(level: LogLevel, message: string) {
  if (level === 'debug') return;
  const token = getToken();
  fetch(`${apiBase()}/logger`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ message: message.slice(0, 2000), level } satisfies LogLine),
    keepalive: true,
  })
    .then((res) => {
      if (!res.ok) console.warn('[logger] shipping failed', res.status);
    })
    .catch((err: unknown) => console.warn('[logger] shipping failed', err));
}

function emit(level: LogLevel, message: string) {
  const fn = level === 'error' ? console.error : level === 'warn' ? console.warn : console.info;
  fn(`[kizuna] ${message}`);
  shipper(level, message);
}

export function log(level: LogLevel, message: string): void {
  const key = `${level}:${message}`;
  const now = Date.now();
  if (last && last.key === key && now - last.at < LOG_THROTTLE_MS) {
    last.at = now;
    last.count++;
    if (last.count > LOG_THROTTLE_MIN) {
      last.suppressed++;
      scheduleFlush();
      return;
    }
  } else {
    flush();
    last = { key, at: now, count: 1, suppressed: 0 };
  }
  emit(level, message);
}

function scheduleFlush() {
  if (flushTimer) clearTimeout(flushTimer);
  flushTimer = setTimeout(flush, LOG_THROTTLE_MS);
}

function flush() {
  if (flushTimer) clearTimeout(flushTimer);
  flushTimer = null;
  if (last && last.suppressed > 0) {
    const [level, ...rest] = last.key.split(':');
    emit(level as LogLevel, `${rest.join(':')} (repeated ${last.suppressed} times)`);
    last.suppressed = 0;
  }
}

export const logger = {
  debug: (m: string) => log('debug', m),
  info: (m: string) => log('info', m),
  warn: (m: string) => log('warn', m),
  error: (m: string) => log('error', m),
};

export function describeError(err: unknown): string {
  if (err instanceof Error) return `${err.name}: ${err.message}${err.stack ? `\n${err.stack.split('\n').slice(1, 4).join('\n')}` : ''}`;
  return String(err);
}

/** Test helper. */
export function setLogShipper(fn: ((level: LogLevel, message: string) => void) | null): void {
  shipper = fn ?? defaultShip;
  last = null;
}
