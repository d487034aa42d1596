// One error type leaves the store, so that callers map storage failures to a
// server fault without knowing the driver. The message is safe to show; the
// driver's error stays on `cause` for the logs.

export type StoreErrorKind = 'unavailable' | 'failed';

const MESSAGES: Record<StoreErrorKind, string> = {
  unavailable: 'The data store is unavailable.',
  failed: 'The data store could not complete the request.',
};

export class StoreError extends Error {
  override readonly name = 'StoreError';
  /** `unavailable`: the database cannot be reached at all (closed, refused, down). */
  readonly kind: StoreErrorKind;

  constructor(kind: StoreErrorKind, cause?: unknown) {
    super(MESSAGES[kind], cause === undefined ? undefined : { cause });
    this.kind = kind;
  }
}

/** Wraps any failure as a StoreError, keeping an existing one as it is. */
export function toStoreError(error: unknown): StoreError {
  if (error instanceof StoreError) return error;
  return new StoreError(isUnavailable(error) ? 'unavailable' : 'failed', error);
}

// Network errors of Node, and SQLite results meaning the file cannot be used
// (SQLITE_BUSY only reaches here once a lock held by another connection was
// waited for until the deadline: sqlite-lock-wait.ts).
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'SQLITE_CANTOPEN',
  'SQLITE_NOTADB',
  'SQLITE_BUSY',
]);

// PostgreSQL SQLSTATE values and classes meaning "no usable connection":
// 08 connection exception, 28 authentication, 3D000 no such database,
// 53300 too many connections, 57P01-57P03 server shutting down or starting.
const UNAVAILABLE_SQLSTATES = new Set(['3D000', '53300', '57P01', '57P02', '57P03']);
const UNAVAILABLE_SQLSTATE_CLASSES = new Set(['08', '28']);

// Drivers that report a dead connection only in prose.
const UNAVAILABLE_MESSAGES = [
  /database connection is not open/i, // better-sqlite3 after close()
  /driver has already been destroyed/i, // Kysely after destroy()
  /pool after calling end/i, // pg Pool after end()
  /connection terminated/i,
  /timeout exceeded when trying to connect/i,
  /client has encountered a connection error/i,
  /client was closed/i,
];

function isUnavailable(error: unknown, depth = 0): boolean {
  if (depth > 4 || typeof error !== 'object' || error === null) return false;
  const { code, message, errors, cause } = error as {
    code?: unknown;
    message?: unknown;
    errors?: unknown;
    cause?: unknown;
  };
  if (typeof code === 'string') {
    if (UNAVAILABLE_CODES.has(code) || code.startsWith('SQLITE_IOERR') || code.startsWith('SQLITE_BUSY_')) return true;
    if (/^[0-9A-Z]{5}$/.test(code)) {
      if (UNAVAILABLE_SQLSTATES.has(code) || UNAVAILABLE_SQLSTATE_CLASSES.has(code.slice(0, 2))) return true;
    }
  }
  if (typeof message === 'string' && UNAVAILABLE_MESSAGES.some((pattern) => pattern.test(message))) return true;
  // Node reports a refused dual-stack connect as an AggregateError of attempts.
  if (Array.isArray(errors) && errors.some((inner) => isUnavailable(inner, depth + 1))) return true;
  return isUnavailable(cause, depth + 1);
}
