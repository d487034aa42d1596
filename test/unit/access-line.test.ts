// The access log's own line writer (src/observe/access-line.ts) against pino
// writing the same entry: the same bytes, but for the time.
import pino from 'pino';
import { createLogger } from '../../src/log';
import { accessLineWriter, type AccessEntry } from '../../src/observe/access-line';

function capture() {
  const lines: string[] = [];
  return { lines, destination: { write: (line: string) => void lines.push(line) } };
}

const withoutTime = (line: string) => line.replace(/,"time":\d+/, ',"time":0');

const ENTRIES: AccessEntry[] = [
  {
    requestId: 'f3b1c2d4-1111-4222-8333-944455556666',
    method: 'POST',
    path: '/PushNotificationMobile.asmx',
    status: 200,
    durationMs: 0.412,
    endpoint: 'PushNotificationMobile',
    operation: 'GetTokenDevice',
    binding: 'soap11',
    outcome: 'ok',
    fault: undefined,
  },
  {
    requestId: 'lb-7f3a.42',
    method: undefined,
    path: '/a"b\\c\u0001\u007f\u00e9/%22',
    status: 0,
    durationMs: Number.NaN,
    endpoint: undefined,
    operation: undefined,
    binding: undefined,
    outcome: 'client_fault',
    fault: 'aborted',
    aborted: true,
  },
  // Each kind of character JSON escapes, alone, and the kinds it writes as they are (a surrogate pair, Arabic, DEL).
  ...['"', '\\', '\u0000', '\u001f', '\ud83d\ude00', 'طالب', '\u007f', '<&>'].map(entryHolding),
];

function entryHolding(text: string): AccessEntry {
  return {
    requestId: 'plain-id',
    method: 'GET',
    path: `/p${text}q`,
    status: 500,
    durationMs: 1.5,
    endpoint: text,
    operation: `op${text}`,
    binding: 'http_get',
    outcome: 'server_fault',
    fault: text,
  };
}

/**
 * Our writer and pino, each on a logger as the observer makes its own (src/observe/request-observer.ts): without
 * redaction, so that the line is the writer's own and not pino's.
 */
function besidePino() {
  const ours = capture();
  const theirs = capture();
  const redactless = { redact: { paths: [], censor: '' } };
  const write = accessLineWriter(createLogger('info', { destination: ours.destination }).child({}, redactless));
  const logger = createLogger('info', { destination: theirs.destination }).child({}, redactless);
  return { ours, theirs, write, logger };
}

describe('the access-log line', () => {
  it('is byte for byte what pino writes for the same entry, at info and at warn', () => {
    const { ours, theirs, write, logger } = besidePino();
    for (const entry of ENTRIES) {
      for (const level of ['info', 'warn'] as const) {
        write(level, entry);
        logger[level](entry, 'request');
      }
    }
    expect(ours.lines).toHaveLength(2 * ENTRIES.length);
    expect(ours.lines.map(withoutTime)).toEqual(theirs.lines.map(withoutTime));
    expect(JSON.parse(ours.lines[3])).toMatchObject({
      level: 40,
      path: ENTRIES[1].path,
      aborted: true,
      msg: 'request',
    });
  });

  it('writes the duration as pino does, for every thousandth the observer rounds to and for other numbers', () => {
    const { ours, theirs, write, logger } = besidePino();
    // The observer's rounding of a duration in seconds (src/observe/request-observer.ts), over whole and part values
    // with none, one, two and three digits after the point, and numbers it never gives.
    const thousandths = [0, 1, 5, 10, 50, 99, 100, 120, 412, 500, 999, 1000, 1001, 1010, 1500, 12345, 999999, 1234567];
    const durations = [
      ...thousandths.map((n) => Math.round(n * 1000) / 1e3 / 1000),
      ...thousandths.map((n) => Math.round((n / 1e6) * 1e6) / 1e3),
      ...Array.from({ length: 2000 }, (_, i) => Math.round(((i * 7919) % 100_003) * 13.37) / 1e3),
      0.0001,
      1e-7,
      -1.5,
      2 ** 31,
      1e21,
      Number.POSITIVE_INFINITY,
    ];
    for (const durationMs of durations) {
      write('info', { ...ENTRIES[0], durationMs });
      logger.info({ ...ENTRIES[0], durationMs }, 'request');
    }
    expect(ours.lines).toHaveLength(durations.length);
    expect(ours.lines.map(withoutTime)).toEqual(theirs.lines.map(withoutTime));
    expect(ours.lines[durations.indexOf(0.05)]).toContain('"durationMs":0.05,');
  });

  it('writes a lone surrogate as JSON.stringify does, an escape (pino writes it as it is, and UTF-8 then loses it)', () => {
    const ours = capture();
    const write = accessLineWriter(createLogger('info', { destination: ours.destination }));
    for (const text of ['\ud800', '\udfff', 'a\ud83d']) write('info', entryHolding(text));
    expect(ours.lines.map((line) => (JSON.parse(line) as { fault: string }).fault)).toEqual([
      '\ud800',
      '\udfff',
      'a\ud83d',
    ]);
    expect(ours.lines[2]).toContain('"fault":"a\\ud83d"');
  });

  it('follows the logger level as it changes', () => {
    const out = capture();
    const logger = createLogger('warn', { destination: out.destination });
    const write = accessLineWriter(logger);
    write('info', ENTRIES[0]);
    expect(out.lines).toHaveLength(0);
    write('warn', ENTRIES[0]);
    expect(out.lines).toHaveLength(1);
    logger.level = 'info';
    write('info', ENTRIES[0]);
    expect(out.lines).toHaveLength(2);
    logger.level = 'silent';
    write('warn', ENTRIES[0]);
    expect(out.lines).toHaveLength(2);
  });

  it("leaves a logger that uses pino's mixin, formatters or serializers to pino", () => {
    const out = capture();
    const write = accessLineWriter(
      pino(
        {
          mixin: () => ({ zone: 'z1' }),
          formatters: { log: (o: Record<string, unknown>) => ({ ...o, formatted: true }) },
          serializers: { path: () => '[path]' },
        },
        out.destination,
      ),
    );
    write('info', ENTRIES[0]);
    expect(JSON.parse(out.lines[0])).toMatchObject({ zone: 'z1', formatted: true, path: '[path]', msg: 'request' });
  });
});
