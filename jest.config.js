/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  testPathIgnorePatterns: [
    '/node_modules/',
    '/test/interop/',
    '/test/browser/',
    '/test/chaos/',
    '/test/prometheus/',
    '/test/container/',
  ],
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }],
  },
  watchman: false,
  // A loaded 2-core machine can take seconds to open a PostgreSQL store; slow is not wrong.
  testTimeout: 30000,
  reporters: ['default', '<rootDir>/test/support/summary-reporter.js'],
};
