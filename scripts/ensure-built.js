// Builds dist/ only when it is older than the sources (docs/operating.md#commands):
// `npm start` and the `npm run` commands call it before starting the compiled
// code, so that a command answers at once when nothing changed since the last
// build. The newest modification time of src/**/*.ts, tsconfig*.json and
// package.json is compared with dist/.build-stamp, written after a successful
// build. `npm run build` remains the explicit full build. test/unit/ensure-built.test.ts.
const { spawnSync } = require('node:child_process');
const { readdirSync, statSync, utimesSync, writeFileSync } = require('node:fs');
const path = require('node:path');

const STAMP = path.join('dist', '.build-stamp');

/** The newest modification time (ms) of the inputs of the build under `root`; 0 when there are none. */
function newestSourceTime(root) {
  let newest = 0;
  const consider = (file) => {
    newest = Math.max(newest, statSync(file).mtimeMs);
  };
  const src = path.join(root, 'src');
  // A deleted source changes its folder's time: the folders count too.
  for (const entry of readdirSync(src, { withFileTypes: true, recursive: true })) {
    if (entry.isDirectory() || (entry.isFile() && entry.name.endsWith('.ts')))
      consider(path.join(entry.parentPath, entry.name));
  }
  consider(src);
  for (const name of readdirSync(root)) {
    if (name === 'package.json' || /^tsconfig.*\.json$/.test(name)) consider(path.join(root, name));
  }
  return newest;
}

/** Whether dist/ under `root` must be built: no stamp, or a source newer than it. */
function isStale(root) {
  let stamp;
  try {
    stamp = statSync(path.join(root, STAMP)).mtimeMs;
  } catch {
    return true;
  }
  return newestSourceTime(root) > stamp;
}

/** Writes the stamp, dated from before the build started, so that a source saved during the build counts as newer. */
function writeStamp(root, startedAt) {
  const file = path.join(root, STAMP);
  writeFileSync(file, `${new Date(startedAt).toISOString()}\n`);
  const seconds = startedAt / 1000;
  utimesSync(file, seconds, seconds);
}

/**
 * Runs `build` (returns an exit code) when `root` is stale, or always with `force`,
 * after saying so through `say`; writes the stamp after a success. Returns the exit code.
 */
function ensureBuilt(root, build, force = false, say = (line) => process.stderr.write(`${line}\n`)) {
  if (!force && !isStale(root)) return 0;
  // A build takes tens of seconds: say so before it starts, on stderr (a command's stdout may be its output).
  say(buildingLine(root));
  const startedAt = Date.now();
  const code = build();
  if (code === 0) writeStamp(root, startedAt);
  return code;
}

/** The one line printed before a build: a first run, or sources changed since the last build. */
function buildingLine(root) {
  let first = true;
  try {
    statSync(path.join(root, STAMP));
    first = false;
  } catch {
    // no stamp: dist/ was never built here
  }
  return first
    ? 'building the service (first run, about 40 s)'
    : 'building the service (sources changed since the last build, about 40 s)';
}

function tsc(root) {
  const bin = require.resolve('typescript/bin/tsc', { paths: [root] });
  const result = spawnSync(process.execPath, [bin, '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
  return result.status ?? 1;
}

module.exports = { STAMP, buildingLine, ensureBuilt, isStale, newestSourceTime, writeStamp };

if (require.main === module) {
  const unsupported = require('./check-node.js').unsupportedMessage(process.version);
  if (unsupported) {
    console.error(unsupported);
    process.exit(1);
  }
  const root = path.resolve(__dirname, '..');
  // `--force`: the explicit full build (`npm run build`), which writes the stamp too.
  process.exit(ensureBuilt(root, () => tsc(root), process.argv.includes('--force')));
}
