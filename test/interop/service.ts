// The service under test as it runs in production: `node dist/main.js` (built
// by `npm run build`), on a free loopback port, its SQLite store seeded with
// the test fixtures so that every answer is known in advance.
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import path from 'node:path';
import { builtMain, portWhenListening, seededStore } from '../support/built-service';
import { FIXTURES } from '../support/fixtures';
import { GENERATED_DIR, REPO_ROOT } from './paths';

const START_TIMEOUT_MS = 30_000;

export interface RunningService {
  readonly port: number;
  close(): Promise<void>;
}

export interface ServiceOptions {
  /** ACCESS_POLICY: a policy file for the service to enforce (the auth run). */
  readonly accessPolicy?: string;
}

export async function startSeededService(options: ServiceOptions = {}): Promise<RunningService> {
  const store = await seededStore(FIXTURES, 'sns-interop-');

  // The plain run is the service without a policy, whatever the caller's environment says.
  const { ACCESS_POLICY: _inherited, ...inherited } = process.env;
  const logName = options.accessPolicy === undefined ? 'service.log' : 'service-auth.log';
  const child = spawn(process.execPath, [builtMain(REPO_ROOT)], {
    env: {
      ...inherited,
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: store.dataDir,
      DEMO_DATA: 'false',
      LOG_LEVEL: 'info',
      // Every client asks a code for the same phone from the same address within a minute:
      // the abuse limits (tested on their own) would refuse all but the first.
      AUTH_CODE_LIMIT_PER_PHONE: 'off',
      AUTH_CODE_LIMIT_PER_CALLER: 'off',
      ...(options.accessPolicy === undefined ? {} : { ACCESS_POLICY: options.accessPolicy }),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const log = createWriteStream(path.join(GENERATED_DIR, logName));
  child.stderr?.pipe(log);
  const close = async () => {
    await stop(child);
    log.end();
    store.remove();
  };
  try {
    const port = await portWhenListening(child, {
      timeoutMs: START_TIMEOUT_MS,
      onLine: (line) => log.write(`${line}\n`),
      explain: () => `; see ${path.relative(REPO_ROOT, GENERATED_DIR)}/${logName}`,
    });
    return { port, close };
  } catch (err) {
    await close();
    throw err;
  }
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}
