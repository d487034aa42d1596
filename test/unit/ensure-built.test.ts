// scripts/ensure-built.js: `npm start` and the commands build dist/ only when a
// source is newer than the stamp of the last build (docs/operating.md#commands).
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

interface EnsureBuilt {
  isStale(root: string): boolean;
  ensureBuilt(root: string, build: () => number, force?: boolean, say?: (line: string) => void): number;
}
const { ensureBuilt, isStale } = jest.requireActual<EnsureBuilt>('../../scripts/ensure-built.js');

const quiet = () => undefined;

describe('ensure-built', () => {
  let root: string;
  const at = (file: string, seconds: number) => utimesSync(path.join(root, file), seconds, seconds);

  beforeEach(() => {
    root = mkdtempSync(path.join(os.tmpdir(), 'sns-ensure-built-'));
    mkdirSync(path.join(root, 'src', 'cli'), { recursive: true });
    writeFileSync(path.join(root, 'src', 'main.ts'), '');
    writeFileSync(path.join(root, 'src', 'cli', 'user.ts'), '');
    writeFileSync(path.join(root, 'package.json'), '{}');
    writeFileSync(path.join(root, 'tsconfig.build.json'), '{}');
    for (const file of ['src/main.ts', 'src/cli/user.ts', 'src/cli', 'src', 'package.json', 'tsconfig.build.json']) {
      at(file, 1_000_000);
    }
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('builds when dist/ was never built, and writes the stamp after a success only', () => {
    expect(isStale(root)).toBe(true);
    expect(ensureBuilt(root, () => 2, false, quiet)).toBe(2);
    expect(isStale(root)).toBe(true);
    const build = jest.fn(() => {
      mkdirSync(path.join(root, 'dist'));
      return 0;
    });
    expect(ensureBuilt(root, build, false, quiet)).toBe(0);
    expect(build).toHaveBeenCalledTimes(1);
    expect(isStale(root)).toBe(false);
  });

  it('does not build when nothing changed since the stamp; builds after a source, a folder (a source deleted), tsconfig or package.json changed', () => {
    mkdirSync(path.join(root, 'dist'));
    writeFileSync(path.join(root, 'dist', '.build-stamp'), '');
    at('dist/.build-stamp', 2_000_000);
    const build = jest.fn(() => 0);
    expect(ensureBuilt(root, build, false, quiet)).toBe(0);
    expect(build).not.toHaveBeenCalled();

    for (const file of ['src/cli/user.ts', 'src/cli', 'src', 'tsconfig.build.json', 'package.json']) {
      at(file, 3_000_000);
      expect(isStale(root)).toBe(true);
      at(file, 1_000_000);
      expect(isStale(root)).toBe(false);
    }
    at('src/cli/user.ts', 3_000_000);
    expect(ensureBuilt(root, build, false, quiet)).toBe(0);
    expect(build).toHaveBeenCalledTimes(1);
    expect(isStale(root)).toBe(false);
  });

  it('builds when forced, though nothing changed, and writes the stamp after a success only', () => {
    mkdirSync(path.join(root, 'dist'));
    writeFileSync(path.join(root, 'dist', '.build-stamp'), '');
    at('dist/.build-stamp', 2_000_000);
    at('src/main.ts', 3_000_000);
    expect(ensureBuilt(root, () => 2, true, quiet)).toBe(2);
    expect(isStale(root)).toBe(true);
    at('src/main.ts', 1_000_000);
    const build = jest.fn(() => 0);
    expect(ensureBuilt(root, build, true, quiet)).toBe(0);
    expect(build).toHaveBeenCalledTimes(1);
    expect(isStale(root)).toBe(false);
  });

  it('says what it is doing before a build: a first run, or sources changed; nothing when it does not build', () => {
    const lines: string[] = [];
    const say = (line: string) => lines.push(line);
    const build = jest.fn(() => {
      mkdirSync(path.join(root, 'dist'), { recursive: true });
      // The line came first: a long build is never silent.
      expect(lines).toHaveLength(1);
      return 0;
    });
    expect(ensureBuilt(root, build, false, say)).toBe(0);
    expect(lines).toEqual(['building the service (first run, about 40 s)']);
    at('dist/.build-stamp', 2_000_000);
    expect(ensureBuilt(root, build, false, say)).toBe(0);
    expect(lines).toHaveLength(1);
    at('src/main.ts', 3_000_000);
    lines.length = 0;
    expect(ensureBuilt(root, build, false, say)).toBe(0);
    expect(lines).toEqual(['building the service (sources changed since the last build, about 40 s)']);
  });

  it('ignores files that are not TypeScript sources', () => {
    mkdirSync(path.join(root, 'dist'));
    writeFileSync(path.join(root, 'dist', '.build-stamp'), '');
    at('dist/.build-stamp', 2_000_000);
    writeFileSync(path.join(root, 'README.md'), '');
    expect(isStale(root)).toBe(false);
  });
});
