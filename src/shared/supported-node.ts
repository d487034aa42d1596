// The compiled entry points (dist/main.js, dist/cli/*.js) refuse a Node.js
// the service does not support, as `npm start` does before them
// (scripts/check-node.js gives the same message; test/unit/check-node.test.ts
// checks that they agree): run directly under Node 20, better-sqlite3 13
// would crash the process later instead (docs/operating.md#runtime).
const SUPPORTED = [24, 26] as const;

/** What to do when `version` (process.version) is older than the supported lines; null when it is supported. */
export function unsupportedNodeMessage(version: string): string | null {
  const major = Number(/^v?(\d+)/.exec(version)?.[1] ?? 0);
  if (major >= SUPPORTED[0]) return null;
  return (
    `This service needs Node.js ${SUPPORTED.join(' or ')}; this is ${version}. ` +
    '`npm start`, `npm test` and every `npm run` command use the Node 24 that `npm install` puts in ' +
    'node_modules/.bin on Linux (x64, arm64): run `npm install`, then the command through npm, or ' +
    '`npx node FILE` for a file run directly. Elsewhere, install Node 24 (nodejs.org, or your distribution).'
  );
}

/** Exits with the message (status 1) when this Node.js is not supported; the first line of every entry point. */
export function refuseUnsupportedNode(): void {
  const message = unsupportedNodeMessage(process.version);
  if (message === null) return;
  process.stderr.write(`${message}\n`);
  process.exit(1);
}
