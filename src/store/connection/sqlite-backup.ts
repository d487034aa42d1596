// An online copy of the SQLite store while the service keeps writing to it
// (docs/operating.md#backups-and-upgrades), through SQLite's backup API:
// pages are copied in steps from a connection of our own, reading through
// the WAL, so every committed transaction is in the copy. When another
// process writes between two steps, SQLite starts the copy again; after a
// few such restarts the rest is copied in one step, one read transaction
// that WAL lets the service write beside. The copy is checked and made a
// single self-contained file under FILE.partial, then renamed: a half copy
// never carries the final name.
import Database from 'better-sqlite3';
import { closeSync, existsSync, fsyncSync, linkSync, openSync, realpathSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { SQLITE_FILE_NAME } from './sqlite';

/** Pages copied per step: 4 MB of 4 KB pages, a few milliseconds of reading each. */
const STEP_PAGES = 1024;
/** Restarts tolerated before the rest is copied in one step. */
const RESTARTS_BEFORE_ONE_STEP = 3;
/** How long opening the source waits for a lock the service holds. */
const BUSY_TIMEOUT_MS = 5_000;

export interface SqliteBackupOptions {
  /** The folder of the store (DATA_DIR). */
  readonly dataDir: string;
  /** The copy to write. */
  readonly destination: string;
  /** Replace `destination` when it exists. */
  readonly force: boolean;
}

export interface SqliteBackupResult {
  /** Pages in the copy. */
  readonly pages: number;
  readonly pageSize: number;
  /** Times the copy started again because the service wrote meanwhile. */
  readonly restarts: number;
  readonly steps: number;
  readonly milliseconds: number;
}

/** A refusal or a failed check, worded for the operator; nothing is left under the destination's name. */
export class SqliteBackupError extends Error {}

/** The store's file in `dataDir`, as the service opens it. */
export function sqliteStoreFile(dataDir: string): string {
  return path.resolve(dataDir, SQLITE_FILE_NAME);
}

export async function backupSqliteStore(options: SqliteBackupOptions): Promise<SqliteBackupResult> {
  const source = sqliteStoreFile(options.dataDir);
  const destination = path.resolve(options.destination);
  if (!existsSync(source)) throw new SqliteBackupError(`There is no store at ${source} (DATA_DIR).`);
  if (existsSync(destination)) {
    if (!options.force) throw new SqliteBackupError(`${destination} exists; pass --force to replace it.`);
    if (realpathSync(destination) === realpathSync(source))
      throw new SqliteBackupError(`${destination} is the store itself.`);
  }
  if (!existsSync(path.dirname(destination)))
    throw new SqliteBackupError(`The folder ${path.dirname(destination)} does not exist.`);

  const partial = `${destination}.partial`;
  removeDatabaseFiles(partial);
  const started = performance.now();
  let copied: { restarts: number; steps: number };
  const database = new Database(source, { fileMustExist: true });
  try {
    database.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    copied = await copyPages(database, partial);
  } catch (error) {
    removeDatabaseFiles(partial);
    throw error;
  } finally {
    database.close();
  }
  let pages: { pages: number; pageSize: number };
  try {
    pages = checkAndSeal(partial);
    // The copy's bytes reach the disk before its name does.
    syncFile(partial);
    if (options.force) renameSync(partial, destination);
    else {
      // Never over a file that appeared while we copied: link fails when the name exists.
      linkSync(partial, destination);
      rmSync(partial);
    }
    syncFile(path.dirname(destination));
  } catch (error) {
    removeDatabaseFiles(partial);
    throw error;
  }
  return { ...pages, ...copied, milliseconds: performance.now() - started };
}

async function copyPages(database: Database.Database, partial: string): Promise<{ restarts: number; steps: number }> {
  let restarts = 0;
  let steps = 0;
  let lastRemaining = Number.POSITIVE_INFINITY;
  await database.backup(partial, {
    progress: ({ totalPages, remainingPages }) => {
      steps += 1;
      // The remaining count goes up only when SQLite started over.
      if (remainingPages > lastRemaining) restarts += 1;
      lastRemaining = remainingPages;
      return restarts >= RESTARTS_BEFORE_ONE_STEP ? totalPages : STEP_PAGES;
    },
  });
  return { restarts, steps: steps + 1 };
}

/** integrity_check on the copy, then the rollback journal instead of WAL so that the copy is one file. */
function checkAndSeal(file: string): { pages: number; pageSize: number } {
  const copy = new Database(file, { fileMustExist: true });
  try {
    const problems = copy.pragma('integrity_check', { simple: false }) as Array<{ integrity_check: string }>;
    const verdict = problems.map((row) => row.integrity_check);
    if (verdict.length !== 1 || verdict[0] !== 'ok')
      throw new SqliteBackupError(`The copy failed its integrity check: ${verdict.slice(0, 5).join('; ')}`);
    copy.pragma('journal_mode = DELETE');
    return {
      pages: copy.pragma('page_count', { simple: true }) as number,
      pageSize: copy.pragma('page_size', { simple: true }) as number,
    };
  } finally {
    copy.close();
  }
}

function syncFile(file: string): void {
  const descriptor = openSync(file, 'r');
  try {
    fsyncSync(descriptor);
  } finally {
    closeSync(descriptor);
  }
}

function removeDatabaseFiles(file: string): void {
  for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(`${file}${suffix}`, { force: true });
}
