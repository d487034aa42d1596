// A real SIGHUP to a real server process: the policy file is read again, the
// process keeps serving, and a bad file leaves the policy in force.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { policyFile, type PolicyFixture } from './support';

const ROOT = path.resolve(__dirname, '../..');

let child: ChildProcess | null = null;
let policy: PolicyFixture;
let dataDir: string;
afterEach(async () => {
  if (child !== null && child.exitCode === null) {
    const exited = new Promise((resolve) => child?.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
  policy.cleanup();
  rmSync(dataDir, { recursive: true, force: true });
});

test('SIGHUP reloads ACCESS_POLICY without a restart', async () => {
  policy = policyFile('default:\n  allow: ["127.0.0.0/8", "::1/128"]\n');
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'sns-sighup-'));
  const server = spawn(process.execPath, ['-r', path.join(ROOT, 'test/delivery/support/register-ts.js'), path.join(ROOT, 'src/main.ts')], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      WORKER: 'false',
      LOG_FORMAT: 'json',
      LOG_LEVEL: 'info',
      ACCESS_POLICY: policy.file,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child = server;
  let output = '';
  const waiters: { text: string; resolve: () => void }[] = [];
  const onOutput = (chunk: Buffer) => {
    output += chunk.toString();
    for (const waiter of waiters.filter((w) => output.includes(w.text))) waiter.resolve();
  };
  server.stdout.on('data', onOutput);
  server.stderr.on('data', onOutput);
  const logged = (text: string) =>
    new Promise<void>((resolve, reject) => {
      if (output.includes(text)) resolve();
      else waiters.push({ text, resolve });
      server.once('exit', () => reject(new Error(`the server exited:\n${output}`)));
    });

  await logged('"msg":"listening on');
  const port = Number(/"port":(\d+)/.exec(output)?.[1]);
  const token = () => fetch(`http://127.0.0.1:${port}/PushNotificationMobile.asmx/GetTokenDevice?id=dev-1001`).then((res) => res.status);
  expect(await token()).toBe(200);

  policy.write('default:\n  allow: ["10.0.0.0/8"]\n');
  server.kill('SIGHUP');
  await logged('"msg":"access policy reloaded"');
  expect(await token()).toBe(403);

  policy.write('default:\n  allow: [nowhere]\n');
  server.kill('SIGHUP');
  await logged('the access policy was not reloaded');
  expect(await token()).toBe(403);
  expect(server.exitCode).toBeNull();
});
