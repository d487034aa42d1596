// What the chaos suites (test/chaos/support/service-process.ts) and the
// interop suite (test/interop/service.ts) share to run the built service,
// `node dist/main.js`, as it runs in production: a store seeded with data
// known in advance, and the port the service picked (PORT=0) read from its
// `listening` log line.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { openStore, type DataSet } from '../../src/store';

/** The built entry point under a repository root (found by each suite its own way: interop runs compiled elsewhere). */
export function builtMain(repoRoot: string): string {
  return path.join(repoRoot, 'dist', 'main.js');
}

export interface TempStore {
  readonly dataDir: string;
  remove(): void;
}

/** A temporary folder (`<tmp>/<prefix>XXXXXX`) whose store holds `data`: SQLite there, or the database at `databaseUrl`. */
export async function seededStore(data: DataSet, prefix: string, databaseUrl?: string): Promise<TempStore> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), prefix));
  const store = await openStore(databaseUrl === undefined ? { dataDir } : { dataDir, databaseUrl });
  try {
    await store.dataSet.writeDataSet(data);
  } finally {
    await store.lifecycle.close();
  }
  return { dataDir, remove: () => rmSync(dataDir, { recursive: true, force: true }) };
}

/** The port of the service's `listening` line (JSON log), or null for any other line. */
export function listeningPort(line: string): number | null {
  try {
    const entry = JSON.parse(line) as { port?: unknown; msg?: unknown };
    return typeof entry.port === 'number' && typeof entry.msg === 'string' && entry.msg.startsWith('listening')
      ? entry.port
      : null;
  } catch {
    return null;
  }
}

/**
 * Reads the child's stdout line by line (each to `onLine`, for as long as it
 * writes) and resolves with the port of its `listening` line. Rejects when the
 * child exits first or after `timeoutMs`; `explain()` is added to the message.
 */
export function portWhenListening(
  child: ChildProcess,
  options: { timeoutMs: number; onLine(line: string): void; explain(): string },
): Promise<number> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`the service did not start within ${options.timeoutMs / 1000} s${options.explain()}`)),
      options.timeoutMs,
    );
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`the service exited (${code ?? signal ?? 'unknown'}) at start${options.explain()}`));
    });
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
      options.onLine(line);
      const port = listeningPort(line);
      if (port !== null) {
        clearTimeout(timer);
        resolve(port);
      }
    });
  });
}
