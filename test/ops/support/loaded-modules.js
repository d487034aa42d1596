// Preloaded into a service process (node -r) by test/ops/traces.test.ts: at
// exit, writes the OpenTelemetry files the process had loaded to
// LOADED_MODULES_FILE, one path a line.
const { writeFileSync } = require('node:fs');

process.on('exit', () => {
  const loaded = Object.keys(require.cache).filter((file) => file.includes('/node_modules/@opentelemetry/'));
  writeFileSync(process.env.LOADED_MODULES_FILE, loaded.join('\n'));
});
