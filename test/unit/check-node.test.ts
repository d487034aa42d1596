// scripts/check-node.js: an unsupported Node.js is refused with what to do
// (docs/operating.md#runtime), and the versions it accepts are package.json's.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';

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
      expect(message).toContain('scripts/use-node24.sh');
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
