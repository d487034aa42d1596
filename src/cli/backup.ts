// npm run backup -- [--force] FILE
// A consistent copy of the embedded SQLite store while the service runs
// (docs/operating.md#backups-and-upgrades); PostgreSQL has pg_dump for that.
import './node-guard';
import { backupSqliteStore, SqliteBackupError, sqliteStoreFile } from '../store';
import { answerHelpOrVersion, fromInvocation } from './args';
import { loadConfigOrExit } from './load-config';
import { runCommand } from './store-from-config';

const USAGE = `Usage: npm run backup -- [--force] FILE

Copies the embedded SQLite store (DATA_DIR/service.sqlite) to FILE while the
service keeps running and writing: every transaction committed before the
copy ends is in it. The copy is checked (integrity_check) and written as
FILE.partial, then renamed to FILE. An existing FILE is kept unless --force.
With DATABASE_URL set, use pg_dump instead (docs/operating.md).
`;

export async function main(args: readonly string[]): Promise<number> {
  if (answerHelpOrVersion(args, USAGE)) return 0;
  const force = args.includes('--force');
  const files = args.filter((arg) => arg !== '--force');
  if (files.length !== 1 || files[0].startsWith('-') || files[0].trim() === '') {
    process.stderr.write(USAGE);
    return 2;
  }
  const config = loadConfigOrExit();
  if (config.databaseUrl !== null && config.databaseUrl.trim() !== '') {
    process.stderr.write(
      'DATABASE_URL is set: the store is PostgreSQL. Back it up with pg_dump -Fc (docs/operating.md#backups-and-upgrades).\n',
    );
    return 2;
  }
  const destination = fromInvocation(files[0]);
  try {
    const result = await backupSqliteStore({ dataDir: config.dataDir, destination, force });
    const megabytes = (result.pages * result.pageSize) / 1024 / 1024;
    const restarts =
      result.restarts === 0 ? '' : `; started over ${result.restarts} time(s) as the service wrote meanwhile`;
    process.stdout.write(
      `Copied ${result.pages.toLocaleString('en-US')} pages (${megabytes.toFixed(1)} MB) of ${sqliteStoreFile(config.dataDir)} to ${destination} in ${(result.milliseconds / 1000).toFixed(2)} s${restarts}.\n`,
    );
    return 0;
  } catch (error) {
    if (!(error instanceof SqliteBackupError)) throw error;
    process.stderr.write(`${error.message} Nothing was written.\n`);
    return 1;
  }
}

if (require.main === module) runCommand(() => main(process.argv.slice(2)));
