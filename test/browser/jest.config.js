// `npm run test:browser`: the help pages in headless Chromium (see help-pages.test.ts).
/** @type {import('jest').Config} */
module.exports = {
  rootDir: '../..',
  testEnvironment: 'node',
  roots: ['<rootDir>/test/browser'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }],
  },
  watchman: false,
  testTimeout: 30000,
  reporters: ['default', ['<rootDir>/test/support/summary-reporter.js', { label: 'browser' }]],
};
