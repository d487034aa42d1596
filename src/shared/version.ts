// The release's version, package.json's, read once at start: the help pages,
// /healthz and every command's --version show it. src/shared and dist/shared
// sit at the same depth below the project.
import { readFileSync } from 'node:fs';
import path from 'node:path';

function readManifest(): { name: string; version: string } {
  const manifest: unknown = JSON.parse(readFileSync(path.resolve(__dirname, '..', '..', 'package.json'), 'utf8'));
  const { name, version } =
    typeof manifest === 'object' && manifest !== null ? (manifest as Record<string, unknown>) : {};
  if (typeof version !== 'string') throw new Error('package.json has no version');
  if (typeof name !== 'string') throw new Error('package.json has no name');
  return { name, version };
}

const MANIFEST = readManifest();

export const SERVICE_VERSION = MANIFEST.version;
/** The package's name: the service's name in its traces unless OTEL_SERVICE_NAME gives another. */
export const SERVICE_NAME = MANIFEST.name;
