// Refuses to go on under a Node.js the service does not support (package.json
// `engines`: 24 or 26), with a message that says what to do, instead of the
// crash better-sqlite3 13 gives on Node 20. `npm start`, the commands and
// `npm test` call it first; the compiled entry points give the same message
// (src/shared/supported-node.ts, test/unit/check-node.test.ts) (docs/operating.md#runtime).
const SUPPORTED = [24, 26];

function unsupportedMessage(version) {
  const major = Number(/^v?(\d+)/.exec(version)?.[1] ?? 0);
  if (major >= SUPPORTED[0]) return null;
  return (
    `This service needs Node.js ${SUPPORTED.join(' or ')}; this is ${version}. ` +
    '`npm start`, `npm test` and every `npm run` command use the Node 24 that `npm install` puts in ' +
    'node_modules/.bin on Linux (x64, arm64): run `npm install`, then the command through npm, or ' +
    '`npx node FILE` for a file run directly. Elsewhere, install Node 24 (nodejs.org, or your distribution).'
  );
}

module.exports = { SUPPORTED, unsupportedMessage };

if (require.main === module) {
  const message = unsupportedMessage(process.version);
  if (message) {
    console.error(message);
    process.exit(1);
  }
}
