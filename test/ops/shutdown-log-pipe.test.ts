// A real server process stopped with SIGTERM while its stdout is a pipe whose
// reader went away or stopped reading (a log shipper that died or hangs): it
// still exits within SHUTDOWN_TIMEOUT_MS (docs/operating.md#graceful-shutdown).
// pino's own destination once held the process for ever at exit, retrying
// the write in a synchronous loop that no further signal could interrupt.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { spawnSourceService } from '../support/source-service';

const SHUTDOWN_TIMEOUT_MS = 2000;
/** What the process may take past SHUTDOWN_TIMEOUT_MS at most (main.ts: HARD_EXIT_MARGIN_MS). */
const HARD_EXIT_MARGIN_MS = 2000;
/** The test gives up (and kills the process) after this: the process hung. */
const HUNG_MS = SHUTDOWN_TIMEOUT_MS + HARD_EXIT_MARGIN_MS + 5000;

interface Running {
  readonly child: ChildProcess;
  readonly port: number;
  /** stdout so far, while it is read. */
  output(): string;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

let running: Running | null = null;
let dataDir: string;
beforeEach(() => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'sns-shutdown-pipe-'));
});
afterEach(async () => {
  const child = running?.child;
  if (child !== undefined && child.exitCode === null && child.signalCode === null) {
    child.kill('SIGKILL');
    await running?.exited;
  }
  running = null;
  rmSync(dataDir, { recursive: true, force: true });
});

/** Starts `src/main.ts`, stdout a pipe read until the service listens. */
async function start(env: Record<string, string> = {}): Promise<Running> {
  const child = spawnSourceService({
    DATA_DIR: dataDir,
    DEMO_DATA: 'false',
    LOG_LEVEL: 'info',
    SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS),
    ...env,
  });
  // The service's errors go to stderr; nothing here reads them, so they are drained.
  child.stderr.resume();
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  let output = '';
  const onData = (chunk: Buffer) => (output += chunk.toString());
  child.stdout?.on('data', onData);
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the service did not start:\n${output}`)), 30_000);
    child.stdout?.on('data', () => {
      const found = /"port":(\d+)/.exec(output);
      if (found !== null) {
        clearTimeout(timer);
        resolve(Number(found[1]));
      }
    });
    child.once('exit', () => reject(new Error(`the service exited at start:\n${output}`)));
  });
  running = { child, port, output: () => output, exited };
  return running;
}

/** Milliseconds from SIGTERM to the exit, or Infinity when the process hung (then killed in afterEach). */
async function stopTime(service: Running): Promise<{ ms: number; code: number | null }> {
  const started = Date.now();
  service.child.kill('SIGTERM');
  const outcome = await Promise.race([
    service.exited,
    new Promise<null>((resolve) => setTimeout(() => resolve(null), HUNG_MS)),
  ]);
  return { ms: outcome === null ? Infinity : Date.now() - started, code: outcome?.code ?? null };
}

/** Requests whose log lines are long (the path is logged): about `count` × 8 KB of log. */
async function logALot(port: number, count: number): Promise<void> {
  const long = `/${'x'.repeat(8000)}`;
  for (let i = 0; i < count; i += 20) {
    await Promise.all(
      Array.from({ length: 20 }, () =>
        fetch(`http://127.0.0.1:${port}${long}`).then(
          (res) => res.text(),
          () => '',
        ),
      ),
    );
  }
}

test('exits within SHUTDOWN_TIMEOUT_MS when the reader of its stdout closed the pipe', async () => {
  const service = await start();
  // `| head -1`: the reader takes the first lines and goes away.
  service.child.stdout?.destroy();
  await new Promise((resolve) => setTimeout(resolve, 200));
  const { ms, code } = await stopTime(service);
  process.stdout.write(`shutdown with a closed log pipe: ${ms} ms\n`);
  expect(ms).toBeLessThan(SHUTDOWN_TIMEOUT_MS + HARD_EXIT_MARGIN_MS);
  expect(code).toBe(0);
}, 60_000);

test('exits within SHUTDOWN_TIMEOUT_MS when the reader of its stdout stopped reading and the pipe is full', async () => {
  const service = await start({ LOG_LEVEL: 'debug' });
  // The reader stops: once its buffer and the kernel's are full, every write would block.
  service.child.stdout?.removeAllListeners('data');
  service.child.stdout?.pause();
  await logALot(service.port, 400);
  const { ms, code } = await stopTime(service);
  process.stdout.write(`shutdown with a full log pipe: ${ms} ms\n`);
  expect(ms).toBeLessThan(SHUTDOWN_TIMEOUT_MS + HARD_EXIT_MARGIN_MS);
  expect(code).toBe(0);
}, 60_000);

test('with a reader that keeps reading, the last lines of a shutdown are all written', async () => {
  const service = await start();
  await logALot(service.port, 40);
  const { ms, code } = await stopTime(service);
  expect(ms).toBeLessThan(SHUTDOWN_TIMEOUT_MS);
  expect(code).toBe(0);
  const lines = service.output().trim().split('\n');
  // Every request line, then the shutdown's own.
  expect(lines.filter((line) => line.includes('"msg":"request"'))).toHaveLength(40);
  expect(lines.at(-1)).toMatch(/"msg":"shutdown complete"/);
}, 60_000);

test('a second signal during the shutdown exits at once, with code 1', async () => {
  const service = await start({ SHUTDOWN_TIMEOUT_MS: '30000', BODY_MIN_RATE: 'off' });
  // A request under way keeps the shutdown waiting: its body never ends.
  const socket = net.connect(service.port, '127.0.0.1');
  socket.on('error', () => undefined);
  await new Promise((resolve) => socket.once('connect', resolve));
  socket.write(
    'POST /PushNotificationMobile.asmx HTTP/1.1\r\nHost: test\r\nContent-Type: text/xml\r\nContent-Length: 1000\r\n\r\n<',
  );
  await new Promise((resolve) => setTimeout(resolve, 200));
  service.child.kill('SIGTERM');
  await new Promise((resolve) => setTimeout(resolve, 500));
  expect(service.child.exitCode).toBeNull();
  const { ms, code } = await stopTime(service);
  socket.destroy();
  expect(ms).toBeLessThan(1000);
  expect(code).toBe(1);
}, 60_000);
