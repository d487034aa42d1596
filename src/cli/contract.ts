// `npm run contract`: writes src/contract/generated.ts from wsdl/*.wsdl
// (src/contract/generate.ts); run it after changing a WSDL file.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { GENERATED_FILE, renderContract } from '../contract/generate';

async function main(): Promise<void> {
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
