// `npm run test:container`: the container image and the compose file
// (docs/testing.md#the-container-image). It builds the image with podman and
// starts the built service (`node dist/main.js`) beside it to compare answers,
// so `npm run build` first. Not part of `npm test`: it needs podman, and a
// cold build takes minutes.
/** @type {import('jest').Config} */
module.exports = {
  rootDir: '../..',
  testEnvironment: 'node',
  roots: ['<rootDir>/test/container'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }],
  },
  watchman: false,
  maxWorkers: 1,
  testTimeout: 300000,
  reporters: ['default', ['<rootDir>/test/support/summary-reporter.js', { label: 'container' }]],
};
