// The JSON log lines on stdout, whatever stdout is: a file (pino's own
// destination) or a pipe (the batching destination, src/log-destination.ts).
// Each has its own batch size (src/log.ts); a file's writer refuses one at or
// above its largest write, and the service would then not start at all.
import { spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(__dirname, '../..');
const HOOK = path.join(root, 'test/delivery/support/register-ts.js');
// Many lines, more than a batch of either size, then an exit that flushes.
const SCRIPT = `
const { createLogger } = require(${JSON.stringify(path.join(root, 'src/log'))});
const logger = createLogger('info', { format: 'json' });
for (let i = 0; i < 400; i++) logger.info({ i, filler: 'x'.repeat(100) }, 'line');
setTimeout(() => process.exit(0), 1500);
`;

function run(stdout: number | 'pipe'): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['-r', HOOK, '-e', SCRIPT], { stdio: ['ignore', stdout, 'pipe'] });
    let out = '';
    let err = '';
    child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('close', (code) => resolve({ code, out, err }));
  });
}

const lines = (text: string) => text.split('\n').filter((line) => line !== '');

describe('the log on stdout', () => {
  it('is written to a file, every line', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'sns-log-'));
    try {
      const file = path.join(dir, 'out.log');
      const fd = openSync(file, 'w');
      const { code, err } = await run(fd);
      closeSync(fd);
      expect(err).toBe('');
      expect(code).toBe(0);
      const written = lines(readFileSync(file, 'utf8')).map((line) => JSON.parse(line) as { i: number });
      expect(written.map((line) => line.i)).toEqual([...Array(400).keys()]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);

  it('is written to a pipe, every line', async () => {
    const { code, out, err } = await run('pipe');
    expect(err).toBe('');
    expect(code).toBe(0);
    expect(lines(out).map((line) => (JSON.parse(line) as { i: number }).i)).toEqual([...Array(400).keys()]);
  }, 30_000);
});
