// Every TypeScript file under src/, as [path from the repository root, text],
// for the tests that read the source itself (test/unit/double-casts.test.ts,
// test/unit/signed-in-casts.test.ts).
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(__dirname, '../..');

export function srcFiles(): Array<[string, string]> {
  const src = path.join(root, 'src');
  return readdirSync(src, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => {
      const file = path.join(entry.parentPath, entry.name);
      return [path.relative(root, file), readFileSync(file, 'utf8')];
    });
}
