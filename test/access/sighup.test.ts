// A real SIGHUP to a real server process: the policy file is read again, the
// process keeps serving, and a bad file leaves the policy in force.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { policyFile, type PolicyFixture } from './support';
import { spawnSourceService } from '../support/source-service';

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
  const server = spawnSourceService({ DATA_DIR: dataDir, LOG_LEVEL: 'info', ACCESS_POLICY: policy.file });
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
  const token = () =>
    fetch(`http://127.0.0.1:${port}/PushNotificationMobile.asmx/GetTokenDevice?id=dev-1001`).then((res) => res.status);
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

  // A file emptied by mistake (or a half-written one) once opened every operation on reload.
  output = '';
  policy.write('# the rules are being rewritten\n');
  server.kill('SIGHUP');
  await logged('the access policy was not reloaded');
  expect(output).toMatch(/"level":50,.*sets nothing/);
  expect(await token()).toBe(403);

  output = '';
  policy.write(
    'default:\n  allow: ["127.0.0.0/8", "::1/128"]\nendpoints:\n  PushNotificationMobile.asmx:\n    GetTokenDevice: { allow: ["0.0.0.0/0", "::/0"], limit: 120/1m }\n',
  );
  server.kill('SIGHUP');
  await logged('"msg":"access policy reloaded"');
  expect(output).toContain('"budgetedOnly":[{"operation":"GetTokenDevice","limit":"120/60s","enumeration":null}]');
  expect(await token()).toBe(200);
});

describe('at start', () => {
  const start = (policyText: string) => {
    policy = policyFile(policyText);
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'sns-policy-start-'));
    const server = spawnSourceService({ DATA_DIR: dataDir, ACCESS_POLICY: policy.file });
    child = server;
    let output = '';
    server.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    server.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const listening = new Promise<string>((resolve, reject) => {
      server.stdout.on('data', () => {
        if (output.includes('"msg":"listening on')) resolve(output);
      });
      server.once('exit', (code) => reject(Object.assign(new Error(output), { code })));
    });
    const exited = new Promise<{ code: number | null; output: string }>((resolve) =>
      server.once('exit', (code) => resolve({ code, output })),
    );
    return { listening, exited };
  };

  test('an empty policy file stops the start with exit code 2, naming the file', async () => {
    const { exited, listening } = start('\n# nothing here yet\n');
    listening.catch(() => undefined);
    const { code, output } = await exited;
    expect(code).toBe(2);
    expect(output).toContain(`ACCESS_POLICY: ${policy.file} sets nothing`);
  });

  test('a policy leaving a read of personal data open without saying so stops the start', async () => {
    const { exited, listening } = start('default:\n  auth: none\n');
    listening.catch(() => undefined);
    const { code, output } = await exited;
    expect(code).toBe(2);
    expect(output).toContain('endpoints.NotificationNotes.asmx.GetStudentSchool: GetStudentSchool reads personal data');
  });

  test('the start log lists the operations left open and the budgets of those only budgeted', async () => {
    const { listening } = start(`default:
  allow: ["10.0.0.0/8"]
endpoints:
  ReadNoteFromApp.asmx:
    UpdateNoteState: { allow: ["0.0.0.0/0", "::/0"], open: true }
  PushNotificationMobile.asmx:
    GetTokenDevice: { allow: ["0.0.0.0/0", "::/0"], limit: 120/1m, enumeration: 50/1h }
`);
    const output = await listening;
    const line = output.split('\n').find((l) => l.includes('"msg":"access policy in force"')) ?? '';
    expect(JSON.parse(line)).toMatchObject({
      open: ['UpdateNoteState'],
      budgetedOnly: [{ operation: 'GetTokenDevice', limit: '120/60s', enumeration: '50/3600s' }],
    });
  });
});
