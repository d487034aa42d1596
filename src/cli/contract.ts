// `npm run contract`: writes src/contract/generated.ts from wsdl/*.wsdl
// (src/contract/generate.ts); run it after changing a WSDL file. The script
// compiles only this file and what it imports, never generated.ts: a WSDL
// with a new operation makes the rest of src/ fail to compile (the operation
// has no module yet) until the file is regenerated.
import { SERVICE_VERSION } from '../shared/version';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { GENERATED_FILE, renderContract } from '../contract/generate';
import { wantsHelp, wantsVersion } from './args';

const USAGE = `Usage: npm run contract

Writes src/contract/generated.ts from wsdl/*.wsdl; run it after changing a WSDL file.
`;

async function main(): Promise<void> {
  if (wantsHelp(process.argv.slice(2))) {
    process.stdout.write(USAGE);
    return;
  }
  if (wantsVersion(process.argv.slice(2))) {
    process.stdout.write(`${SERVICE_VERSION}\n`);
    return;
  }
  const text = await renderContract();
  let before: string | null;
  try {
    before = readFileSync(GENERATED_FILE, 'utf8');
  } catch {
    before = null;
  }
  const shown = path.relative(process.cwd(), GENERATED_FILE);
  if (before === text) {
    process.stdout.write(`${shown} is up to date.\n`);
    return;
  }
  writeFileSync(GENERATED_FILE, text);
  process.stdout.write(`${shown} written.\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
