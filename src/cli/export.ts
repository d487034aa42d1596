// npm run export -- [--format csv|json] DIR
import './node-guard';
import { exportDataSet, type ExportFormat } from '../import';
import { answerHelpOrVersion, fromInvocation } from './args';
import { runCommand, storeFromConfig } from './store-from-config';

const USAGE = `Usage: npm run export -- [--format csv|json] DIR

Writes every school, student, device, note and absence of the store
(DATABASE_URL or DATA_DIR) to DIR in the import format: one CSV file per
collection (the default), or one JSON document (data.json).
`;

export async function main(args: readonly string[]): Promise<number> {
  if (answerHelpOrVersion(args, USAGE)) return 0;
  const rest = [...args];
  let format: ExportFormat = 'csv';
  const at = rest.indexOf('--format');
  if (at >= 0) {
    const value = rest[at + 1];
    if (value !== 'csv' && value !== 'json') {
      process.stderr.write(`--format takes csv or json.\n\n${USAGE}`);
      return 2;
    }
    format = value;
    rest.splice(at, 2);
  }
  if (rest.length !== 1 || rest[0]?.startsWith('--') === true) {
    process.stderr.write(USAGE);
    return 2;
  }
  const store = await storeFromConfig();
  try {
    const { files, counts } = await exportDataSet(store.dataSet, fromInvocation(rest[0]), format);
    const summary = Object.entries(counts)
      .map(([c, n]) => `${n.toLocaleString('en-US')} ${c}`)
      .join(', ');
    process.stdout.write(`Exported ${summary} to ${files.join(', ')}\n`);
    return 0;
  } finally {
    await store.lifecycle.close();
  }
}

if (require.main === module) runCommand(() => main(process.argv.slice(2)));
