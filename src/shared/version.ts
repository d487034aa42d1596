// The release's version, package.json's, read once at start: the help pages,
// /healthz and every command's --version show it. src/shared and dist/shared
// sit at the same depth below the project.
import { readFileSync } from 'node:fs';
import path from 'node:path';

function readVersion(): string {
  const manifest: unknown = JSON.parse(readFileSync(path.resolve(__dirname, '..', '..', 'package.json'), 'utf8'));
  const version =
    typeof manifest === 'object' && manifest !== null ? (manifest as { version?: unknown }).version : undefined;
  if (typeof version !== 'string') throw new Error('package.json has no version');
  return version;
}

export const SERVICE_VERSION = readVersion();
