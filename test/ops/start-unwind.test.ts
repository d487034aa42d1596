// A start that fails half-way stops exactly what it had started, newest
// first, and leaves nothing open: every part the service starts is failed
// after in turn, and the process's open files and active handles are counted
// before and after.
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import bcrypt from 'bcryptjs';
import { loadConfig, type Config } from '../../src/config';
import { createLogger } from '../../src/log';
import { createService } from '../../src/service';

interface Opened {
  readonly files: number;
  readonly handles: string[];
}

// What the process holds open: file descriptors (the SQLite file, the
// recording's file, worker threads' pipes) and what keeps the loop alive (timers, sockets).
function opened(): Opened {
  return {
    files: readdirSync('/proc/self/fd').length,
    handles: process
      .getActiveResourcesInfo()
      .filter((kind) => kind !== 'TTYWrap')
      .sort(),
  };
}

// What the service left open: the files and handles over and above those
// open before it started. A handle of the test before (a timer of its
// teardown) that ends meanwhile is not counted against it; a thread that has
// exited (the SQLite checkpoint thread, the bcrypt threads) is let go by Node
// over the next turns of the loop, so what is left is read again for up to
// 2 s before it counts: anything still open then is a leak.
function leftOver(before: Opened, now: Opened): Opened {
  const handles = [...now.handles];
  for (const kind of before.handles) {
    const at = handles.indexOf(kind);
    if (at >= 0) handles.splice(at, 1);
  }
  return { files: Math.max(0, now.files - before.files), handles };
}

async function leftOnceSettled(before: Opened): Promise<Opened> {
  let left = leftOver(before, opened());
  for (let waited = 0; waited < 2_000 && (left.files > 0 || left.handles.length > 0); waited += 20) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    left = leftOver(before, opened());
  }
  return left;
}

const NOTHING: Opened = { files: 0, handles: [] };

// Every part on that can run inside jest: the access policy, the console,
// the shadow, the recording and the worker (tracing starts in a child
// process only; test/ops/traces.test.ts covers its place in the order).
function everythingOn(dir: string): Config {
  const policy = path.join(dir, 'access-policy.json');
  writeFileSync(
    policy,
    JSON.stringify({ users: { operator: bcrypt.hashSync('a-password', 4) }, default: { auth: 'basic' } }),
  );
  return loadConfig({
    DATA_DIR: path.join(dir, 'data'),
    DEMO_DATA: 'true',
    WORKER: 'true',
    PUSH_PROVIDER: 'log',
    SMS_PROVIDER: 'log',
    ACCESS_POLICY: policy,
    CONSOLE: 'true',
    SHADOW_URL: 'http://127.0.0.1:9',
    RECORD_REQUESTS: path.join(dir, 'recorded.jsonl'),
    ADMIN_TOKEN: 'test-admin-token-0123456789',
  });
}

function captured() {
  const logs: Record<string, unknown>[] = [];
  const logger = createLogger('info', {
    destination: { write: (line: string) => void logs.push(JSON.parse(line) as Record<string, unknown>) },
  });
  return { logs, logger };
}

const EVERY_STEP = [
  'store',
  'access limits',
  'bcrypt threads',
  'console bcrypt thread',
  'shadow calls',
  'request recording',
  'delivery worker',
  'console import slot',
];

describe('starting the service', () => {
  let dir: string;
  let config: Config;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'sns-unwind-'));
    config = everythingOn(dir);
    // Once through, so that what loads once per process (modules, the SQLite binding) is not counted below.
    const { logger } = captured();
    await (await createService(config, logger)).close();
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('registers each part as it starts, and close() stops them all', async () => {
    const before = opened();
    const steps: string[] = [];
    const { logger, logs } = captured();
    const service = await createService(config, logger, { onStarted: (step) => steps.push(step) });
    expect(steps).toEqual(EVERY_STEP);
    expect(opened()).not.toEqual(before);

    await service.close();
    expect(logs.find((line) => line.msg === 'shutdown complete')).toMatchObject({ clean: true });
    expect(await leftOnceSettled(before)).toEqual(NOTHING);
  });

  it.each(EVERY_STEP.map((step, index) => ({ step, started: EVERY_STEP.slice(0, index + 1) })))(
    'failing after $step stops what had started and leaves nothing open',
    async ({ step, started }) => {
      const before = opened();
      const steps: string[] = [];
      const { logger, logs } = captured();
      const start = createService(config, logger, {
        onStarted: (name) => {
          steps.push(name);
          if (name === step) throw new Error(`injected failure after ${name}`);
        },
      });

      await expect(start).rejects.toThrow(`injected failure after ${step}`);
      expect(steps).toEqual(started);
      expect(await leftOnceSettled(before)).toEqual(NOTHING);
      // Each stop step finished in time and without an error.
      expect(logs.find((line) => line.msg === 'shutdown complete')).toMatchObject({ clean: true });
      expect(logs.filter((line) => line.level === 50 || line.level === 40)).toEqual([]);
    },
  );
});
