// `npm run test:prometheus`: the alert and recording rules (deploy/prometheus)
// and the Grafana dashboard (deploy/grafana) evaluated by a real Prometheus
// scraping the built service (`node dist/main.js`) under a short mixed load,
// so `npm run build` first. Needs the prometheus binary (Debian's package).
/** @type {import('jest').Config} */
module.exports = {
  rootDir: '../..',
  testEnvironment: 'node',
  roots: ['<rootDir>/test/prometheus'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }],
  },
  watchman: false,
  maxWorkers: 1,
  testTimeout: 120000,
  reporters: ['default', ['<rootDir>/test/support/summary-reporter.js', { label: 'prometheus' }]],
};
