// npm run import -- [--strict] [--dry-run] FILE...
import { formatImportReport, importFiles, terminalProgress } from '../import';
import { fromInvocation, wantsHelp } from './args';
import { runCommand, storeFromConfig } from './store-from-config';

const USAGE = `Usage: npm run import -- [--strict] [--dry-run] FILE...

Imports schools, students, devices, notes and absences (upsert by key) from
CSV files named after their collection (schools.csv, students.csv, ...) or
from JSON documents, into the store of DATABASE_URL or DATA_DIR.

  --strict   refuse the whole import, writing nothing, if any row or file is bad
  --dry-run  check every row and report, writing nothing

Exit code: 0 all rows imported; 1 some rows or files were not; 2 usage or configuration.
`;

export async function main(args: readonly string[]): Promise<number> {
  if (wantsHelp(args)) {
    process.stdout.write(USAGE);
    return 0;
  }
  const flags = new Set(args.filter((a) => a.startsWith('--')));
  const files = args.filter((a) => !a.startsWith('--')).map((file) => fromInvocation(file));
  const unknown = [...flags].filter((f) => !['--strict', '--dry-run'].includes(f));
  if (files.length === 0 || unknown.length > 0) {
    process.stderr.write(
      `${unknown.length > 0 ? `Unknown option ${unknown.join(', ')}.\n` : 'Name at least one file.\n'}\n${USAGE}`,
    );
    return 2;
  }
  const store = await storeFromConfig();
  try {
    const report = await importFiles(store.dataSet, files, {
      strict: flags.has('--strict'),
      dryRun: flags.has('--dry-run'),
      progress: terminalProgress(),
    });
    process.stdout.write(formatImportReport(report));
    return report.complete ? 0 : 1;
  } finally {
    await store.lifecycle.close();
  }
}

if (require.main === module) runCommand(() => main(process.argv.slice(2)));
