// `npm run test:chaos`: the reliability suites (docs/chaos.md). They start the
// built service (`node dist/main.js`) as a real process, so `npm run build` first.
// One file at a time: each one loads the machine on its own, and its figures
// (latencies, recovery times) mean something only without a neighbour.
/** @type {import('jest').Config} */
module.exports = {
  rootDir: '../..',
  testEnvironment: 'node',
  roots: ['<rootDir>/test/chaos'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }],
  },
  watchman: false,
  maxWorkers: 1,
  testTimeout: 600000,
  reporters: ['default', ['<rootDir>/test/support/summary-reporter.js', { label: 'chaos' }]],
};
