// npm run import -- [--strict] [--dry-run] [--collection NAME] FILE...
// npm run import -- --from-asmx URL --schools FILE [options] (seed-from-asmx.ts)
// npm run import -- --repair-nul [--dry-run] (src/import/repair-nul.ts)
import './node-guard';
import {
  formatImportReport,
  formatNulRecords,
  importFiles,
  repairNulRecords,
  terminalProgress,
  type ImportFile,
} from '../import';
import { COLLECTIONS, type DataSetCollection } from '../store';
import { answerHelpOrVersion, fromInvocation } from './args';
import { SEED_USAGE, seedMain } from './seed-from-asmx';
import { runCommand, storeFromConfig } from './store-from-config';
import { loadConfigOrExit } from './load-config';

const USAGE = `Usage: npm run import -- [--strict] [--dry-run] [--collection NAME] FILE...

Imports schools, students, devices, notes and absences (upsert by key) from
CSV files or from JSON documents, into the store of DATABASE_URL or DATA_DIR.
A CSV file holds one collection: the one --collection names, else the one its
name says (schools.csv, Students.CSV, ...), else the one its header row names.
Relative paths are taken from the folder the command was run from.

  --strict           refuse the whole import, writing nothing, if any row or file is bad
  --dry-run          check every row and report, writing nothing
  --collection NAME  the CSV files after it (up to the next --collection) hold NAME:
                     ${COLLECTIONS.join(', ')}

Exit code: 0 all rows imported; 1 some rows or files were not; 2 usage or configuration.

Usage: npm run import -- --repair-nul [--dry-run]

Lists the stored records holding a NUL character (written by an import before
records with one were refused), and writes each back with its NULs dropped,
through the checks of an import. A record whose key holds a NUL is listed and
left as it is. With --dry-run, lists and checks them, writing nothing.
Exit code: 0 none left holding a NUL (or, with --dry-run, none would be); 1 some
are; 2 usage or configuration.

${SEED_USAGE}`;

export async function main(args: readonly string[]): Promise<number> {
  if (answerHelpOrVersion(args, USAGE)) return 0;
  if (args.some((arg) => arg === '--from-asmx' || arg.startsWith('--from-asmx='))) return seedMain(args);
  if (args.includes('--repair-nul')) return repairNulMain(args);
  const flags = new Set<string>();
  const files: ImportFile[] = [];
  const unknown: string[] = [];
  let collection: DataSetCollection | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '--collection' || arg.startsWith('--collection=')) {
      const name = arg === '--collection' ? args[++i] : arg.slice('--collection='.length);
      if (name === undefined || !(COLLECTIONS as readonly string[]).includes(name)) {
        process.stderr.write(`--collection takes one of ${COLLECTIONS.join(', ')}.\n\n${USAGE}`);
        return 2;
      }
      collection = name as DataSetCollection;
    } else if (arg === '--strict' || arg === '--dry-run') flags.add(arg);
    else if (arg.startsWith('--')) unknown.push(arg);
    else files.push({ file: fromInvocation(arg), collection });
  }
  if (files.length === 0 || unknown.length > 0) {
    process.stderr.write(
      `${unknown.length > 0 ? `Unknown option ${unknown.join(', ')}.\n` : 'Name at least one file.\n'}\n${USAGE}`,
    );
    return 2;
  }
  const config = loadConfigOrExit();
  const store = await storeFromConfig(config);
  try {
    const report = await importFiles(store.dataSet, files, {
      eventsAllowHttp: config.delivery.events.allowHttp,
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

async function repairNulMain(args: readonly string[]): Promise<number> {
  const other = args.filter((arg) => arg !== '--repair-nul' && arg !== '--dry-run');
  if (other.length > 0) {
    process.stderr.write(`--repair-nul takes only --dry-run, not ${other.join(', ')}.\n\n${USAGE}`);
    return 2;
  }
  const store = await storeFromConfig(loadConfigOrExit());
  try {
    const { found, report } = await repairNulRecords(store.dataSet, { dryRun: args.includes('--dry-run') });
    process.stdout.write(formatNulRecords(found));
    if (report !== null) process.stdout.write(formatImportReport({ files: [report], complete: true, refused: false }));
    const left =
      found.some((r) => r.keyHoldsNul) ||
      (report !== null && (report.error !== null || report.collections.some((c) => c.rejected > 0)));
    return left ? 1 : 0;
  } finally {
    await store.lifecycle.close();
  }
}

if (require.main === module) runCommand(() => main(process.argv.slice(2)));
