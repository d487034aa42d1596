// A throwaway PostgreSQL cluster: initdb in a temporary folder, a free
// loopback port, trust authentication, started and stopped at the suite's will.
// Never the machine's own server. Run as root (CI), the cluster belongs to the
// `postgres` OS user, since PostgreSQL refuses to run as root.
import { execFileSync, spawn } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

export interface TempPostgres {
  /** `postgres://postgres@127.0.0.1:PORT/postgres` */
  readonly url: string;
  start(): Promise<void>;
  /** `pg_ctl stop -m fast`: sessions are ended, the server is gone until start(). */
  stop(): Promise<void>;
  remove(): Promise<void>;
}

/** The newest installed PostgreSQL's bin folder (Debian: /usr/lib/postgresql/N/bin), or PG_BIN. */
export function postgresBin(): string | null {
  if (process.env.PG_BIN !== undefined) return process.env.PG_BIN;
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  const versions = readdirSync(root)
    .filter((v) => existsSync(path.join(root, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length === 0 ? null : path.join(root, versions[0], 'bin');
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** uid and gid of the `postgres` user when this process is root; null otherwise (run as ourselves). */
function runAs(): { uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
  return { uid, gid };
}

function run(
  file: string,
  args: string[],
  user: { uid: number; gid: number } | null,
  env: Record<string, string> = {},
): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, {
      ...(user ?? {}),
      env: { PATH: process.env.PATH ?? '', LC_ALL: 'C', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0
        ? resolve()
        : reject(new Error(`${path.basename(file)} ${args.join(' ')} exited with ${code}:\n${output}`)),
    );
  });
}

export async function startTempPostgres(): Promise<TempPostgres> {
  const bin = postgresBin();
  if (bin === null)
    throw new Error(
      'PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb; apt-get install postgresql, or set PG_BIN)',
    );
  const user = runAs();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sns-chaos-pg-'));
  if (user !== null) chownSync(dir, user.uid, user.gid);
  const data = path.join(dir, 'data');
  const port = await freePort();
  await run(path.join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8'], user);
  // Small and quick: no durability needed for a throwaway cluster, sockets in our folder.
  const settings = [
    `port = ${port}`,
    "listen_addresses = '127.0.0.1'",
    `unix_socket_directories = '${dir}'`,
    'fsync = off',
    'synchronous_commit = off',
    'full_page_writes = off',
    'max_connections = 100',
    'shared_buffers = 32MB',
  ];
  writeFileSync(path.join(data, 'postgresql.auto.conf'), `${settings.join('\n')}\n`);
  if (user !== null) chownSync(path.join(data, 'postgresql.auto.conf'), user.uid, user.gid);
  const ctl = (...args: string[]) => run(path.join(bin, 'pg_ctl'), ['-D', data, '-w', '-t', '60', ...args], user);
  const instance: TempPostgres = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    start: () => ctl('-l', path.join(dir, 'server.log'), 'start'),
    stop: () => ctl('-m', 'fast', 'stop'),
    async remove() {
      await ctl('-m', 'immediate', 'stop').catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await instance.start();
  return instance;
}
