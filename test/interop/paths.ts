import { accessSync, constants } from 'node:fs';
import path from 'node:path';

/** The repository root, found from this file whether it runs from source or compiled under .generated. */
function findRoot(from: string): string {
  let dir = from;
  while (dir !== path.dirname(dir)) {
    try {
      accessSync(path.join(dir, 'package.json'));
      return dir;
    } catch {
      dir = path.dirname(dir);
    }
  }
  throw new Error(`no package.json above ${from}`);
}

export const REPO_ROOT = findRoot(__dirname);
export const INTEROP_DIR = path.join(REPO_ROOT, 'test', 'interop');
/** Generated clients, compiled drivers and recordings: ignored by git, rebuilt every run. */
export const GENERATED_DIR = path.join(INTEROP_DIR, '.generated');
/** The recorded requests and answers that `npm test` replays (test/wire/replay.test.ts). */
export const FIXTURES_DIR = path.join(INTEROP_DIR, 'fixtures');

/** A client's driver source, e.g. driverFile('dotnet', 'Driver.cs'). */
export function driverFile(client: string, file: string): string {
  return path.join(INTEROP_DIR, 'clients', client, file);
}

/** Whether an executable of that name is on PATH (or that path, when absolute). */
export function isExecutable(name: string): boolean {
  const candidates = path.isAbsolute(name)
    ? [name]
    : (process.env.PATH ?? '').split(path.delimiter).map((dir) => path.join(dir, name));
  return candidates.some((file) => {
    try {
      accessSync(file, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

export function isFile(file: string): boolean {
  try {
    accessSync(file, constants.R_OK);
    return true;
  } catch {
    return false;
  }
}
