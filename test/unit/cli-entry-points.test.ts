// Every entry point as a user starts it (docs/operating.md#commands): `--help`
// and `-h` print the usage on stdout and exit 0, without starting anything;
// relative paths resolve against the folder the command was run from.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fromInvocation, helpOrVersion, invocationDir } from '../../src/cli/args';
import { runUserCli } from '../../src/cli/user';

const ROOT = path.resolve(__dirname, '../..');

function run(
  entry: string,
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(
    process.execPath,
    ['-r', path.join(ROOT, 'test/delivery/support/register-ts.js'), path.join(ROOT, entry), ...args],
    {
      cwd: options.cwd ?? ROOT,
      env: { PATH: process.env.PATH ?? '', DATABASE_URL: '', ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  // An entry point that ignored the flag and started would hold the suite: it is killed after 20 s.
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  return new Promise((resolve) =>
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    }),
  );
}

describe('helpOrVersion', () => {
  it('answers the usage for --help or -h, before --version, anywhere in the arguments', () => {
    expect(helpOrVersion(['x', '-h'], 'U')).toBe('U');
    expect(helpOrVersion(['--version', '--help'], 'U')).toBe('U');
  });

  it('answers the version line for --version, and null when neither is asked', () => {
    const { version } = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(helpOrVersion(['a', '--version'], 'U')).toBe(`${version}\n`);
    expect(helpOrVersion(['--force', 'file', '-help'], 'U')).toBeNull();
  });
});

describe('--help and -h', () => {
  const entries = [
    ['src/main.ts', 'Usage: npm start'],
    ['src/cli/import.ts', 'Usage: npm run import'],
    ['src/cli/export.ts', 'Usage: npm run export'],
    ['src/cli/compare.ts', 'Usage: npm run compare'],
    ['src/cli/user.ts', 'usage: npm run user'],
    ['src/cli/outbox.ts', 'usage: npm run outbox'],
    ['src/cli/backup.ts', 'Usage: npm run backup'],
    ['src/cli/operator.ts', 'usage: npm run operator'],
    ['src/cli/worker.ts', 'Usage: npm run worker'],
    ['src/cli/contract.ts', 'Usage: npm run contract'],
  ] as const;

  it.each(entries)('%s prints its usage on stdout and exits 0', async (entry, usage) => {
    for (const flag of ['--help', '-h']) {
      const result = await run(entry, [flag]);
      expect({ flag, ...result }).toMatchObject({ flag, code: 0, stdout: expect.stringContaining(usage), stderr: '' });
    }
  });

  it.each(entries)('%s --version prints the version of package.json and exits 0', async (entry) => {
    const { version } = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(await run(entry, ['--version'])).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
  });
});

describe('relative paths', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'sns-cli-paths-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('resolve against INIT_CWD under npm run, else the working directory', () => {
    expect(invocationDir({ INIT_CWD: '/srv/data', npm_lifecycle_event: 'import' }, '/srv/app')).toBe('/srv/data');
    // An INIT_CWD left in the environment by an outer npm does not count outside npm run.
    expect(invocationDir({ INIT_CWD: '/srv/data' }, '/srv/app')).toBe('/srv/app');
    expect(fromInvocation('a.csv', {}, '/srv/app')).toBe(path.resolve('/srv/app/a.csv'));
    expect(fromInvocation('/abs/a.csv', { INIT_CWD: '/srv/data', npm_lifecycle_event: 'x' }, '/srv/app')).toBe(
      path.resolve('/abs/a.csv'),
    );
  });

  it('import and export take their files from the folder they were run from', async () => {
    writeFileSync(path.join(dir, 'schools.csv'), 'baseUrl,name\nhttps://hilltop.school.example,Hilltop\n');
    const env = { DATA_DIR: path.join(dir, 'data') };
    // Run directly with node from the folder of the file.
    let result = await run('src/cli/import.ts', ['schools.csv'], { cwd: dir, env });
    expect(result).toMatchObject({ code: 0, stdout: expect.stringContaining('schools: 1 inserted') });
    // Run through npm run: the package folder is the working directory, INIT_CWD the user's.
    result = await run('src/cli/import.ts', ['schools.csv'], {
      env: { ...env, INIT_CWD: dir, npm_lifecycle_event: 'import' },
    });
    expect(result).toMatchObject({ code: 0, stdout: expect.stringContaining('schools: 0 inserted, 1 updated') });
    result = await run('src/cli/export.ts', ['out'], { env: { ...env, INIT_CWD: dir, npm_lifecycle_event: 'export' } });
    expect(result.code).toBe(0);
    expect(existsSync(path.join(dir, 'out', 'schools.csv'))).toBe(true);
    expect(existsSync(path.join(ROOT, 'out'))).toBe(false);
  });

  it("user's --policy FILE is taken from the folder it was run from", async () => {
    const out: string[] = [];
    const io = {
      env: { INIT_CWD: dir, npm_lifecycle_event: 'user' },
      cwd: ROOT,
      readPassword: () => Promise.resolve('a long enough secret'),
      out: (line: string) => out.push(line),
      err: (line: string) => out.push(line),
    };
    expect(await runUserCli(['add', 'app-gateway', '--policy', 'policy.yaml'], io)).toBe(0);
    expect(readFileSync(path.join(dir, 'policy.yaml'), 'utf8')).toContain('app-gateway');
    expect(existsSync(path.join(ROOT, 'policy.yaml'))).toBe(false);
  });
});
