import { isatty } from 'node:tty';
import pino, { type DestinationStream, type Logger } from 'pino';
import pretty from 'pino-pretty';
import { isPipe, pipeDestination } from './log-destination';

export type { Logger };

export type LogFormat = 'auto' | 'json' | 'pretty';

export interface LoggerOptions {
  /** `auto`: pretty when stdout is a terminal, JSON lines otherwise. */
  readonly format?: LogFormat;
  /** Where JSON lines go (tests); stdout when left out. */
  readonly destination?: DestinationStream;
}

// Wherever these keys appear in a logged object, their values are hidden.
// Phone numbers keep their last digits so that an operator can still tell two
// apart; auth codes and tokens are never written at all.
const PHONE_KEYS = ['phone', 'msisdn', 'to'];
const CODE_KEYS = ['code'];
const SECRET_KEYS = ['token', 'pushToken', 'push_token', 'authorization', 'password', 'adminToken'];

const REDACT_PATHS = [
  ...[...PHONE_KEYS, ...CODE_KEYS, ...SECRET_KEYS].flatMap((key) => [key, `*.${key}`]),
  'req.headers.authorization',
  'req.headers.cookie',
];

const REDACTED = '[redacted]';

/**
 * `+963944123456` → `+*********456`: the country prefix and all but the last
 * three digits hidden. URL escapes (`%2B963…`, `%20`) are kept as they are,
 * their hex digits not counted: numbers also arrive form-encoded.
 */
export function maskPhone(value: unknown): string {
  const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value : '';
  const digits = text.replace(/%[0-9a-f]{2}/gi, '').replace(/\D/g, '').length;
  let seen = 0;
  return text.replace(/%[0-9a-f]{2}|\d/gi, (token) => (token.length > 1 || ++seen > digits - 3 ? token : '*'));
}

// `code` is also the key of error codes (`ECONNREFUSED`, `phone_invalid`),
// which the logs need. An auth code is 4-10 digits, so any value holding a run
// of four digits (or any number) is hidden, and words are kept.
function censorCode(value: unknown): unknown {
  if (typeof value === 'number' || typeof value === 'bigint') return REDACTED;
  if (typeof value === 'string' && /\d{4}/.test(value)) return REDACTED;
  return value;
}

function censor(value: unknown, path: string[]): unknown {
  const key = path[path.length - 1] ?? '';
  if (PHONE_KEYS.includes(key)) return maskPhone(value);
  if (CODE_KEYS.includes(key)) return censorCode(value);
  return REDACTED;
}

/** Structured logs with secrets hidden wherever they appear (see the keys above). */
export function createLogger(level: string, options: LoggerOptions = {}): Logger {
  const settings = {
    level,
    base: { service: 'student-notification' },
    redact: { paths: REDACT_PATHS, censor },
  };
  const format = options.format ?? 'auto';
  // isatty rather than process.stdout.isTTY: reading process.stdout would open a second stream on the descriptor the JSON lines use.
  if (options.destination === undefined && (format === 'pretty' || (format === 'auto' && isatty(1)))) {
    // In the main thread, not a worker transport: a terminal is never the hot path.
    return pino(
      settings,
      pretty({
        colorize: process.stdout.isTTY === true,
        translateTime: 'SYS:HH:MM:ss.l',
        ignore: 'pid,hostname,service',
      }),
    );
  }
  return pino(settings, options.destination ?? stdoutDestination());
}

// Lines gather until 4 KB (a busy server then makes one write a few dozen
// requests instead of one each) and at most a second: a quiet server's
// lines still show promptly. Asynchronous, so a slow log pipe never holds up
// a request. A pipe or a socket (a log shipper) may stop reading or go away:
// its destination never blocks and drops what it cannot take
// (log-destination.ts); a file is written by pino's own destination, which
// flushes what is left when the process exits.
const FLUSH_EVERY_MS = 1000;
// Lines are written 16 KiB at a time (about fifty access lines): each write is a system call, and on a pipe it
// wakes the reader, so under load the log cost a write every dozen calls at 4 KiB (docs/benchmark.md#sixth-round-the-answer-and-the-log-line).
const BATCH_BYTES = 16 * 1024;
// A file's writer (pino's sonic-boom) needs its batch below its largest write, 16 KiB; a file wakes no reader anyway.
const FILE_BATCH_BYTES = 4096;

function stdoutDestination(): DestinationStream {
  if (isPipe(1)) return pipeDestination(1, { batchBytes: BATCH_BYTES, flushEveryMs: FLUSH_EVERY_MS });
  const destination = pino.destination({ dest: 1, sync: false, minLength: FILE_BATCH_BYTES });
  setInterval(() => destination.flush(), FLUSH_EVERY_MS).unref();
  return destination;
}
