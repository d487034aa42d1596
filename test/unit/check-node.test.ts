// scripts/check-node.js: an unsupported Node.js is refused with what to do
// (docs/operating.md#runtime), and the versions it accepts are package.json's.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { unsupportedNodeMessage } from '../../src/shared/supported-node';

interface CheckNode {
  SUPPORTED: number[];
  unsupportedMessage(version: string): string | null;
}
const { SUPPORTED, unsupportedMessage } = jest.requireActual<CheckNode>('../../scripts/check-node.js');

const root = path.join(__dirname, '../..');

describe('check-node', () => {
  it('accepts 24 and 26 and refuses 20 and 22 with the way to Node 24', () => {
    expect(unsupportedMessage('v24.0.0')).toBeNull();
    expect(unsupportedMessage('v26.1.0')).toBeNull();
    for (const old of ['v20.20.2', 'v22.12.0']) {
      const message = unsupportedMessage(old);
      expect(message).toContain(`this is ${old}`);
      expect(message).toContain('`npm install` puts in node_modules/.bin');
    }
  });

  it('gives the same message as the compiled entry points', () => {
    for (const version of ['v18.0.0', 'v20.20.2', 'v22.12.0', 'v24.21.0', 'v26.0.0'])
      expect(unsupportedNodeMessage(version)).toBe(unsupportedMessage(version));
  });

  it('is checked first by every entry point npm runs from dist/, before the SQLite driver loads', () => {
    const scripts = (
      JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
    ).scripts;
    const entries = new Set(
      Object.values(scripts).flatMap((line) => [...line.matchAll(/dist\/((?:cli\/)?[\w-]+)\.js/g)].map((m) => m[1])),
    );
    expect(entries).toContain('main');
    expect(entries).toContain('cli/worker');
    for (const entry of entries) {
      if (entry === 'cli/contract') continue; // a development tool, compiled and run by `npm run contract` alone
      const source = readFileSync(path.join(root, 'src', `${entry}.ts`), 'utf8');
      const firstImport = /^import .*$/m.exec(source)?.[0];
      expect([entry, firstImport]).toEqual([
        entry,
        entry === 'main' ? "import './cli/node-guard';" : "import './node-guard';",
      ]);
    }
  });

  it('names the same majors as package.json engines', () => {
    const engines = (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { engines: { node: string } })
      .engines.node;
    expect(engines).toBe(SUPPORTED.map((major) => `^${major}.0.0`).join(' || '));
  });

  it('lets the running Node through (the tests run on a supported one)', () => {
    const result = spawnSync(process.execPath, [path.join(root, 'scripts/check-node.js')], { encoding: 'utf8' });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
  });
});
