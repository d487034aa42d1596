// npm run operator: the console's accounts in the server's store, a bcrypt
// hash as the policy's users have, every change ending the account's sessions.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import bcrypt from 'bcryptjs';
import { runOperatorCli } from '../../src/cli/operator';
import { openStore } from '../../src/store';
import { storeVariants, type TestStore } from '../support/stores';

const ROOT = path.resolve(__dirname, '../..');

describe.each(storeVariants())('npm run operator on $name', (variant) => {
  let ctx: TestStore;
  beforeEach(async () => {
    ctx = await variant.create();
  });
  afterEach(() => ctx.cleanup());

  const run = async (args: string[], password = 'a long enough secret') => {
    const out: string[] = [];
    const err: string[] = [];
    let closed = 0;
    const code = await runOperatorCli(args, {
      openStore: () => Promise.resolve({ console: ctx.store.console, close: () => Promise.resolve(void closed++) }),
      readPassword: () => Promise.resolve(password),
      out: (line) => out.push(line),
      err: (line) => err.push(line),
    });
    return { code, out: out.join('\n'), err: err.join('\n'), closed };
  };

  it('adds an account with a bcrypt hash of the password and the role', async () => {
    const added = await run(['add', 'amira', '--role', 'operator']);
    expect(added).toMatchObject({ code: 0, out: 'Account amira added (operator).', closed: 1 });
    const account = await ctx.store.console.getAccount('amira');
    expect(account?.role).toBe('operator');
    expect(account?.passwordHash).toMatch(/^\$2[aby]\$10\$/);
    expect(bcrypt.compareSync('a long enough secret', account?.passwordHash ?? '')).toBe(true);
    expect((await run(['list'])).out).toMatch(/^amira\toperator\tchanged /);
  });

  it('changes the role, disables, enables and removes, ending the sessions each time', async () => {
    await run(['add', 'amira', '--role', 'viewer']);
    const session = async () => {
      await ctx.store.console.createSession({ id: `s-${Math.random()}`, account: 'amira', csrf: 'c' });
    };
    const sessions = async () => (await ctx.query('select id from console_sessions')).length;
    await session();
    expect((await run(['set-role', 'amira', 'admin'])).code).toBe(0);
    expect((await ctx.store.console.getAccount('amira'))?.role).toBe('admin');
    expect(await sessions()).toBe(0);
    await session();
    expect((await run(['disable', 'amira'])).out).toBe('Account amira disabled; its sessions ended.');
    expect((await ctx.store.console.getAccount('amira'))?.disabled).toBe(true);
    expect(await sessions()).toBe(0);
    expect((await run(['list'])).out).toContain('\tdisabled');
    expect((await run(['enable', 'amira'])).code).toBe(0);
    expect((await ctx.store.console.getAccount('amira'))?.disabled).toBe(false);
    await session();
    expect((await run(['remove', 'amira'])).code).toBe(0);
    expect(await ctx.store.console.getAccount('amira')).toBeNull();
    expect(await sessions()).toBe(0);
    expect(await run(['remove', 'amira'])).toMatchObject({ code: 1, err: 'There is no account amira.' });
  });

  it('refuses a short password, a bad name, a bad role and a wrong shape, writing nothing', async () => {
    expect(await run(['add', 'amira', '--role', 'admin'], 'short')).toMatchObject({ code: 1, closed: 0 });
    expect((await run(['add', 'a b', '--role', 'admin'])).code).toBe(2);
    expect((await run(['add', '<b>', '--role', 'admin'])).code).toBe(2);
    expect((await run(['add', 'amira', '--role', 'root'])).code).toBe(2);
    expect((await run(['add', 'amira'])).code).toBe(2);
    expect((await run(['set-role', 'amira'])).code).toBe(2);
    expect((await run(['list', 'extra'])).code).toBe(2);
    expect((await run(['frobnicate'])).code).toBe(2);
    expect(await ctx.store.console.listAccounts()).toEqual([]);
  });

  it('prints its usage for --help and the version for --version', async () => {
    const help = await run(['--help']);
    expect(help.code).toBe(0);
    expect(help.out).toContain('npm run operator -- add NAME --role viewer|operator|admin');
    expect((await run(['--version'])).out).toMatch(/^\d+\.\d+\.\d+/);
  });
});

test('as a command: reads the password from a pipe and writes the account to DATA_DIR', async () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'sns-operator-'));
  try {
    const child = spawn(
      process.execPath,
      [
        '-r',
        path.join(ROOT, 'test/delivery/support/register-ts.js'),
        path.join(ROOT, 'src/cli/operator.ts'),
        'add',
        'amira',
        '--role',
        'admin',
      ],
      { cwd: ROOT, env: { PATH: process.env.PATH ?? '', DATA_DIR: dataDir }, stdio: ['pipe', 'pipe', 'pipe'] },
    );
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stdin.end('piped secret of some length\nignored second line\n');
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(output).toContain('Account amira added (admin).');
    expect(code).toBe(0);
    const store = await openStore({ dataDir });
    try {
      const account = await store.console.getAccount('amira');
      expect(bcrypt.compareSync('piped secret of some length', account?.passwordHash ?? '')).toBe(true);
    } finally {
      await store.lifecycle.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
