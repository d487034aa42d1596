// Secret settings given as files (resolveSecretFiles in src/config-values.ts, docs/operating.md#secrets-in-files):
// `<NAME>_FILE` names a file whose content is the value, as the official
// container images read `POSTGRES_PASSWORD_FILE`; each refusal names the
// variable and the path and never what the file holds.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConfigError, loadConfig, secretSettingNames, type Config } from '../../src/config';
import { MAX_SECRET_FILE_BYTES } from '../../src/config-values';

const dir = mkdtempSync(path.join(os.tmpdir(), 'sns-secret-files-'));
let files = 0;

/** A new file holding `content`, its path. */
function secretFile(content: string | Buffer): string {
  const file = path.join(dir, `secret-${++files}`);
  writeFileSync(file, content);
  return file;
}

/** The ConfigError loadConfig throws for `env`. */
function refusal(env: NodeJS.ProcessEnv): string {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('the configuration was accepted');
}

const ADMIN_TOKEN = '0123456789abcdef0123456789abcdef';

// Each secret setting, with what it needs beside it and where its value ends up.
const SECRETS: ReadonlyArray<{
  name: string;
  value: string;
  with: NodeJS.ProcessEnv;
  read: (config: Config) => unknown;
  expected?: unknown;
}> = [
  { name: 'ADMIN_TOKEN', value: ADMIN_TOKEN, with: {}, read: (c) => c.adminToken },
  { name: 'DATABASE_URL', value: 'postgres://sns:p%40ss@db:5432/sns', with: {}, read: (c) => c.databaseUrl },
  {
    name: 'SHADOW_PASSWORD',
    value: 'legacy pass',
    with: { SHADOW_URL: 'http://legacy.example', SHADOW_USER: 'shadow' },
    read: (c) => c.shadow?.credentials?.password,
  },
  {
    // The FCM projects' list names each project's credentials (docs/delivery.md#several-fcm-projects-chosen-per-school).
    name: 'FCM_PROJECTS',
    value: '[{"name":"brand-a","projectId":"proj-a"}]',
    with: { PUSH_PROVIDER: 'fcm', FCM_PROJECT_ID: 'proj-1' },
    read: (c) => {
      const push = c.delivery.push;
      return 'projects' in push
        ? JSON.stringify(push.projects.map(({ name, projectId }) => ({ name, projectId })))
        : null;
    },
  },
  {
    name: 'PUSH_WEBHOOK_TOKEN',
    value: 'webhook-token-1',
    with: { PUSH_PROVIDER: 'webhook', PUSH_WEBHOOK_URL: 'https://push.example/send' },
    read: (c) => (c.delivery.push as { token?: unknown }).token,
  },
  {
    name: 'TWILIO_AUTH_TOKEN',
    value: 'twilio-secret-1',
    with: { SMS_PROVIDER: 'twilio', TWILIO_ACCOUNT_SID: 'AC123', TWILIO_FROM: '+15550100' },
    read: (c) => (c.delivery.sms as { authToken?: unknown }).authToken,
  },
  {
    name: 'SMS_HTTP_HEADERS',
    value: '{\n  "X-Api-Key": "gateway-key-1"\n}',
    with: { SMS_PROVIDER: 'http', SMS_HTTP_URL: 'https://sms.example/send' },
    read: (c) => (c.delivery.sms as { headers?: unknown }).headers,
    expected: { 'X-Api-Key': 'gateway-key-1' },
  },
];

describe('secret settings read from files (<NAME>_FILE)', () => {
  it('are exactly the settings that hold credentials, declared as secrets', () => {
    expect([...secretSettingNames].sort()).toEqual(SECRETS.map((secret) => secret.name).sort());
  });

  it.each(SECRETS.map((secret) => [secret.name, secret] as const))(
    '%s_FILE gives it the content of the file',
    (_, secret) => {
      const direct = secret.read(loadConfig({ ...secret.with, [secret.name]: secret.value }));
      expect(direct).toEqual(secret.expected ?? secret.value);
      const fromFile = loadConfig({ ...secret.with, [`${secret.name}_FILE`]: secretFile(`${secret.value}\n`) });
      expect(secret.read(fromFile)).toEqual(direct);
    },
  );

  it.each([
    ['no line break', 'pw-no-newline', 'pw-no-newline'],
    ['one LF', 'pw\n', 'pw'],
    ['one CRLF', 'pw\r\n', 'pw'],
    ['two line breaks, of which one is removed', 'pw\n\n', 'pw\n'],
    ['spaces, which are kept', ' pw with spaces \n', ' pw with spaces '],
  ])('removes one trailing newline only: %s', (_, content, password) => {
    const config = loadConfig({
      SHADOW_URL: 'http://legacy.example',
      SHADOW_USER: 'shadow',
      SHADOW_PASSWORD_FILE: secretFile(content),
    });
    expect(config.shadow?.credentials).toEqual({ user: 'shadow', password });
  });

  it('checks the value from a file as it checks the variable, without repeating it', () => {
    const message = refusal({ ADMIN_TOKEN_FILE: secretFile('tooShortSecret\n') });
    expect(message).toMatch(/ADMIN_TOKEN must be at least 16 characters/);
    expect(message).not.toContain('tooShortSecret');
  });

  it('reads the file relative to the working directory, its path trimmed, and a blank variable counts as unset', () => {
    const relative = path.relative(process.cwd(), secretFile(`${ADMIN_TOKEN}\n`));
    expect(loadConfig({ ADMIN_TOKEN_FILE: ` ${relative} `, ADMIN_TOKEN: '  ' }).adminToken).toBe(ADMIN_TOKEN);
  });

  const CONTENT = 'hunter2-secret-content';
  it.each([
    ['a missing file', () => path.join(dir, 'missing'), /ADMIN_TOKEN_FILE: cannot read \S+missing: ENOENT/],
    [
      'a folder',
      () => {
        const folder = path.join(dir, `folder-${++files}`);
        mkdirSync(folder);
        return folder;
      },
      /ADMIN_TOKEN_FILE: cannot read \S+folder-\d+: EISDIR/,
    ],
    ['an empty file', () => secretFile(''), /ADMIN_TOKEN_FILE: \S+secret-\d+ is empty/],
    ['a file of one newline', () => secretFile('\n'), /ADMIN_TOKEN_FILE: \S+secret-\d+ is empty/],
    [
      'a file too large for a secret',
      () => secretFile(Buffer.alloc(MAX_SECRET_FILE_BYTES + 1, CONTENT)),
      new RegExp(`ADMIN_TOKEN_FILE: \\S+secret-\\d+ is larger than ${MAX_SECRET_FILE_BYTES} bytes`),
    ],
  ])('stops the start on %s, naming the variable and the path', (_, file, message) => {
    const given = file();
    const text = refusal({ ADMIN_TOKEN_FILE: given });
    expect(text).toMatch(message);
    expect(text).toContain(given);
    expect(text).not.toContain(CONTENT);
  });

  it('stops the start when a file is unreadable to the service (mode 000)', () => {
    if (process.getuid?.() === 0) return; // root reads any file: the missing file and the folder above cover it
    const file = secretFile(CONTENT);
    chmodSync(file, 0o000);
    expect(refusal({ TWILIO_AUTH_TOKEN_FILE: file })).toMatch(/TWILIO_AUTH_TOKEN_FILE: cannot read \S+: EACCES/);
  });

  it.each(SECRETS.map((secret) => secret.name))('refuses %s set with its _FILE, naming both', (name) => {
    const text = refusal({ [name]: CONTENT, [`${name}_FILE`]: secretFile(CONTENT) });
    expect(text).toContain(`${name} and ${name}_FILE are both set`);
    expect(text).not.toContain(CONTENT);
  });

  it.each(['PORT', 'LOG_LEVEL', 'SHADOW_USER', 'TWILIO_ACCOUNT_SID', 'FCM_CREDENTIALS'])(
    'refuses %s_FILE: a setting that is not a secret is not read from a file',
    (name) => {
      const text = refusal({ [`${name}_FILE`]: secretFile('8080') });
      expect(text).toMatch(new RegExp(`${name}_FILE: unknown setting: ${name} is not a secret`));
    },
  );

  it("leaves alone a _FILE variable of another program's (POSTGRES_PASSWORD_FILE)", () => {
    expect(loadConfig({ POSTGRES_PASSWORD_FILE: path.join(dir, 'missing') }).databaseUrl).toBeNull();
  });

  it('lists every problem of the files at once', () => {
    const text = refusal({ ADMIN_TOKEN_FILE: path.join(dir, 'missing'), PORT_FILE: secretFile('1') });
    expect(text).toMatch(/ADMIN_TOKEN_FILE: cannot read/);
    expect(text).toMatch(/PORT_FILE: unknown setting/);
  });

  // The service and the commands read their configuration the same way (src/cli/load-config.ts).
  it.each([
    ['src/main.ts', []],
    ['src/cli/worker.ts', []],
    ['src/cli/export.ts', [path.join(dir, 'export')]],
  ])('%s stops with exit code 2 on a bad secret file, naming the variable and the path only', (entry, args) => {
    const root = path.resolve(__dirname, '../..');
    const file = secretFile(`${CONTENT}\n`);
    const result = spawnSync(
      process.execPath,
      ['-r', path.join(root, 'test/delivery/support/register-ts.js'), path.join(root, entry), ...args],
      {
        cwd: dir,
        encoding: 'utf8',
        timeout: 20_000,
        env: {
          PATH: process.env.PATH ?? '',
          DATA_DIR: dir,
          ADMIN_TOKEN_FILE: path.join(dir, 'missing'),
          TWILIO_AUTH_TOKEN: CONTENT,
          TWILIO_AUTH_TOKEN_FILE: file,
        },
      },
    );
    expect(result.status).toBe(2);
    expect(result.stderr).toContain(`ADMIN_TOKEN_FILE: cannot read ${path.join(dir, 'missing')}: ENOENT`);
    expect(result.stderr).toContain('TWILIO_AUTH_TOKEN and TWILIO_AUTH_TOKEN_FILE are both set');
    expect(`${result.stdout}${result.stderr}`).not.toContain(CONTENT);
  });
});
