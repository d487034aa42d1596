// npm run user -- add|remove NAME: writes bcrypt hashes under `users`, keeps
// the rest of the file (comments included), refuses to leave an invalid policy.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import bcrypt from 'bcryptjs';
import { parse } from 'yaml';
import { parsePolicy } from '../../src/access';
import { runUserCli } from '../../src/cli/user';
import { HASHES, policyFile, type PolicyFixture } from './support';

const ROOT = path.resolve(__dirname, '../..');

function io(password: string, env: NodeJS.ProcessEnv = {}) {
  const out: string[] = [];
  const err: string[] = [];
  return {
    out,
    err,
    io: {
      env,
      readPassword: () => Promise.resolve(password),
      out: (l: string) => out.push(l),
      err: (l: string) => err.push(l),
    },
  };
}

let fixture: PolicyFixture;
afterEach(() => fixture.cleanup());

test('add writes a bcrypt hash under users and keeps comments and the other keys', async () => {
  fixture = policyFile(`# Who may call what (docs/security.md)
realm: Schools # shown by clients
users:
  sis-alnoor: "${HASHES['sis-alnoor']}"
default:
  auth: basic
`);
  const run = io('a long enough secret');
  expect(await runUserCli(['add', 'app-gateway', '--policy', fixture.file], run.io)).toBe(0);
  expect(run.out.join('\n')).toContain(`User app-gateway added in ${fixture.file}`);
  const text = readFileSync(fixture.file, 'utf8');
  expect(text).toContain('# Who may call what (docs/security.md)');
  expect(text).toContain('realm: Schools # shown by clients');
  const data = parse(text) as { users: Record<string, string> };
  expect(data.users['sis-alnoor']).toBe(HASHES['sis-alnoor']);
  expect(await bcrypt.compare('a long enough secret', data.users['app-gateway'])).toBe(true);
  expect(parsePolicy(text).users.size).toBe(2);

  const again = io('another long secret', { ACCESS_POLICY: fixture.file });
  expect(await runUserCli(['add', 'app-gateway'], again.io)).toBe(0);
  expect(again.out.join('\n')).toContain('User app-gateway updated');
  const updated = parse(readFileSync(fixture.file, 'utf8')) as { users: Record<string, string> };
  expect(await bcrypt.compare('another long secret', updated.users['app-gateway'])).toBe(true);
});

test('remove deletes the user, but not one the policy still needs', async () => {
  fixture = policyFile(`users:
  sis-alnoor: "${HASHES['sis-alnoor']}"
  app-gateway: "${HASHES['app-gateway']}"
endpoints:
  NotificationNotes.asmx:
    GetStudentSchool: { auth: basic, users: [sis-alnoor] }
`);
  const ok = io('');
  expect(await runUserCli(['remove', 'app-gateway', '--policy', fixture.file], ok.io)).toBe(0);
  expect(ok.out.join('\n')).toContain('User app-gateway removed');
  expect(Object.keys((parse(readFileSync(fixture.file, 'utf8')) as { users: object }).users)).toEqual(['sis-alnoor']);

  const before = readFileSync(fixture.file, 'utf8');
  const needed = io('');
  expect(await runUserCli(['remove', 'sis-alnoor', '--policy', fixture.file], needed.io)).toBe(1);
  expect(needed.err.join('\n')).toContain('no user sis-alnoor under users');
  expect(readFileSync(fixture.file, 'utf8')).toBe(before);

  const missing = io('');
  expect(await runUserCli(['remove', 'nobody', '--policy', fixture.file], missing.io)).toBe(1);
});

test('a JSON policy, a new file, a short password and bad arguments', async () => {
  fixture = policyFile('{"realm": "Schools", "default": {"auth": "none"}}', 'policy.json');
  const run = io('json secret 123');
  expect(await runUserCli(['add', 'sis-alnoor', '--policy', fixture.file], run.io)).toBe(0);
  const data = JSON.parse(readFileSync(fixture.file, 'utf8')) as { realm: string; users: Record<string, string> };
  expect(data.realm).toBe('Schools');
  expect(await bcrypt.compare('json secret 123', data.users['sis-alnoor'])).toBe(true);

  const fresh = path.join(path.dirname(fixture.file), 'new.yaml');
  expect(await runUserCli(['add', 'first', '--policy', fresh], io('first secret!').io)).toBe(0);
  expect(Object.keys((parse(readFileSync(fresh, 'utf8')) as { users: object }).users)).toEqual(['first']);

  const short = io('short');
  expect(await runUserCli(['add', 'x', '--policy', fixture.file], short.io)).toBe(1);
  expect(short.err.join('\n')).toContain('at least 8 characters');
  expect(await runUserCli(['add', 'x'], io('long enough pw').io)).toBe(2);
  expect(await runUserCli(['add', 'bad:name', '--policy', fixture.file], io('long enough pw').io)).toBe(2);
  expect(await runUserCli(['rename', 'x', '--policy', fixture.file], io('').io)).toBe(2);
});

test('as a command, the password comes from stdin when it is not a terminal', async () => {
  fixture = policyFile('# policy\n');
  const child = spawn(
    process.execPath,
    [
      '-r',
      path.join(ROOT, 'test/delivery/support/register-ts.js'),
      path.join(ROOT, 'src/cli/user.ts'),
      'add',
      'sis-alnoor',
    ],
    {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', ACCESS_POLICY: fixture.file },
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stdin.end('piped secret words\n');
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  expect({ code, output }).toMatchObject({ code: 0, output: expect.stringContaining('User sis-alnoor added') });
  const data = parse(readFileSync(fixture.file, 'utf8')) as { users: Record<string, string> };
  expect(await bcrypt.compare('piped secret words', data.users['sis-alnoor'])).toBe(true);
  expect(readFileSync(fixture.file, 'utf8').startsWith('# policy\n')).toBe(true);
});
