// The service under test as it runs in production: `node dist/main.js` (built
// by `npm run build`), on a free loopback port, its SQLite store seeded with
// the test fixtures so that every answer is known in advance.
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { openStore } from '../../src/store';
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
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'sns-interop-'));
  const store = await openStore({ dataDir });
  try {
    await store.writeDataSet(FIXTURES);
  } finally {
    await store.close();
  }

  // The plain run is the service without a policy, whatever the caller's environment says.
  const { ACCESS_POLICY: _inherited, ...inherited } = process.env;
  const logName = options.accessPolicy === undefined ? 'service.log' : 'service-auth.log';
  const child = spawn(process.execPath, [path.join(REPO_ROOT, 'dist', 'main.js')], {
    env: {
      ...inherited,
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
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
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    return { port: await listeningPort(child, log, logName), close };
  } catch (err) {
    await close();
    throw err;
  }
}

/** The port from the service's `listening` log line (PORT=0 lets the system pick a free one). */
function listeningPort(child: ChildProcess, log: NodeJS.WritableStream, logName: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the service did not start within ${START_TIMEOUT_MS / 1000} s`)), START_TIMEOUT_MS);
    child.once('exit', (code) => reject(new Error(`the service exited with code ${code} at start; see ${path.relative(REPO_ROOT, GENERATED_DIR)}/${logName}`)));
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
      log.write(`${line}\n`);
      const port = portOf(line);
      if (port !== null) {
        clearTimeout(timer);
        resolve(port);
      }
    });
  });
}

function portOf(line: string): number | null {
  try {
    const entry = JSON.parse(line) as { port?: unknown; msg?: unknown };
    return typeof entry.port === 'number' && typeof entry.msg === 'string' && entry.msg.startsWith('listening') ? entry.port : null;
  } catch {
    return null;
  }
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}
