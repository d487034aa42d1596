// The access log's line, written as pino writes it, without pino's general
// path: a line per request goes through a loop over the entry's keys, a
// character scan of every string, and the hooks pino offers but this logger
// does not use. Here the line is joined from the entry's fields in one
// expression, the strings quoted as JSON.stringify quotes them. The bytes are the same
// as pino's for the same entry, but that a lone surrogate is escaped here
// where pino writes it as it is (test/unit/access-line.test.ts compares them),
// and they go to the same stream, so the destination's batching, the pretty
// format and the tests' capture see no difference. A logger that uses what
// this path would skip (a mixin, formatters, hooks, serializers or
// stringifiers for these keys, a nested key or a message prefix) keeps
// pino's own path. docs/benchmark.md#request-path has what it saves.
import pino, { type Logger } from 'pino';

/** The fields of one access-log line, in the order the line gives them; undefined ones are left out. */
export interface AccessEntry {
  readonly requestId: string;
  readonly method: string | undefined;
  readonly path: string;
  readonly status: number;
  readonly durationMs: number;
  readonly endpoint: string | undefined;
  readonly operation: string | undefined;
  readonly binding: string | undefined;
  readonly outcome: string;
  readonly fault: string | undefined;
  readonly aborted?: true;
}

export type AccessLineWriter = (level: 'info' | 'warn', entry: AccessEntry) => void;

const KEYS = [
  'requestId',
  'method',
  'path',
  'status',
  'durationMs',
  'endpoint',
  'operation',
  'binding',
  'outcome',
  'fault',
  'aborted',
] as const;

const MESSAGE = 'request';

/** The writer for `logger`: its own fast line where the logger allows it, pino's path otherwise. */
export function accessLineWriter(logger: Logger): AccessLineWriter {
  const slow: AccessLineWriter = (level, entry) => logger[level](entry, MESSAGE);
  const fast = fastWriter(logger);
  return fast ?? slow;
}

function fastWriter(logger: Logger): AccessLineWriter | null {
  // msgPrefixSym is in pino's symbols but not in its types.
  const s = pino.symbols as typeof pino.symbols & { readonly msgPrefixSym: symbol };
  // pino keeps its settings under symbols its types do not list: read as unknowns, each checked where used.
  const internal = (key: symbol): unknown => Reflect.get(logger, key);
  const formatters = internal(s.formattersSym) as { log?: unknown } | undefined;
  const hooks = internal(s.hooksSym) as { streamWrite?: unknown; logMethod?: unknown } | undefined;
  const serializers = (internal(s.serializersSym) ?? {}) as Record<string, unknown>;
  const stringifiers = (internal(s.stringifiersSym) ?? {}) as Record<string | symbol, unknown>;
  const stream = internal(s.streamSym) as { write(line: string): unknown; [key: symbol]: unknown } | undefined;
  const levels = internal(s.lsCacheSym) as Record<number, string> | undefined;
  const time = internal(s.timeSym) as (() => string) | undefined;
  if (
    internal(s.mixinSym) ||
    formatters?.log ||
    hooks?.streamWrite ||
    hooks?.logMethod ||
    internal(s.nestedKeySym) ||
    internal(s.msgPrefixSym) ||
    internal(s.messageKeySym) !== 'msg' ||
    internal(s.endSym) === undefined ||
    stringifiers[s.wildcardFirstSym] ||
    KEYS.some((key) => serializers[key] !== undefined || stringifiers[key] !== undefined) ||
    serializers.msg !== undefined ||
    stringifiers.msg !== undefined ||
    stream === undefined ||
    stream[s.needsMetadataGsym] === true ||
    levels === undefined ||
    typeof time !== 'function'
  )
    return null;
  const end = `,"msg":"${MESSAGE}"${internal(s.endSym) as string}`;
  const info = logger.levels.values.info;
  const warn = logger.levels.values.warn;
  return (level, entry) => {
    // The level can change while the service runs: read, not remembered.
    const num = level === 'warn' ? warn : info;
    if (num < logger.levelVal) return;
    const chindings = internal(s.chindingsSym) as string;
    let line =
      levels[num] +
      time.call(logger) +
      chindings +
      ',"requestId":' +
      quoted(entry.requestId) +
      (entry.method === undefined ? '' : ',"method":' + quoted(entry.method)) +
      ',"path":' +
      quoted(entry.path) +
      ',"status":' +
      finite(entry.status) +
      ',"durationMs":' +
      thousandths(entry.durationMs);
    if (entry.endpoint !== undefined) line += ',"endpoint":' + quoted(entry.endpoint);
    if (entry.operation !== undefined) line += ',"operation":' + quoted(entry.operation);
    if (entry.binding !== undefined) line += ',"binding":' + quoted(entry.binding);
    line += ',"outcome":' + quoted(entry.outcome);
    if (entry.fault !== undefined) line += ',"fault":' + quoted(entry.fault);
    if (entry.aborted === true) line += ',"aborted":true';
    stream.write(line + end);
  };
}

// What JSON.stringify would escape in a string: a quote, a backslash, a control character, a surrogate (well-formed
// JSON.stringify writes a lone one as an escape). A string with none of them is written between quotes as it is.
// eslint-disable-next-line no-control-regex -- the control characters are what it looks for
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/**
 * A string as JSON.stringify writes it. Most of a line's strings (the request id, the names of the endpoint,
 * operation, binding and outcome) have nothing to escape, and a regular expression's test is cheaper than a
 * call into JSON.stringify for each (docs/benchmark.md#sixth-round-the-answer-and-the-log-line).
 */
function quoted(text: string): string {
  return NEEDS_ESCAPE.test(text) ? JSON.stringify(text) : '"' + text + '"';
}

/** A number as pino writes one: null when it is not finite. */
function finite(value: number): string {
  return Number.isFinite(value) ? String(value) : 'null';
}

/**
 * The duration as `String` writes it, for the milliseconds the observer rounds to thousandths: the whole and
 * the thousandths written as integers, which V8 turns into text from a cache, where a fraction takes its
 * shortest-digits conversion (docs/benchmark.md#seventh-round-the-node-binary-and-the-js). Any other number
 * goes through `finite`.
 */
function thousandths(value: number): string {
  const scaled = Math.round(value * 1000);
  if (scaled < 0 || scaled > 0x3fffffff || scaled / 1000 !== value) return finite(value);
  const whole = Math.floor(scaled / 1000);
  const part = scaled - whole * 1000;
  if (part === 0) return String(whole);
  const digits = part % 100 === 0 ? part / 100 : part % 10 === 0 ? part / 10 : part;
  return whole + (part < 10 ? '.00' : part < 100 ? '.0' : '.') + digits;
}
