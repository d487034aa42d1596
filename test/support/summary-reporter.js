// Prints one closing line, `jest: N passed, M failed[, K skipped]`, that CI
// and people can read without parsing jest's own summary. Written at exit so
// that it comes after jest's summary. The option `label` replaces `jest`.
class SummaryReporter {
  constructor(_globalConfig, options) {
    this.label = (options && options.label) || 'jest';
  }

  onRunComplete(_contexts, results) {
    const skipped = results.numPendingTests + results.numTodoTests;
    const failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
    const line = `${this.label}: ${results.numPassedTests} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''}\n`;
    process.once('exit', () => process.stdout.write(line));
  }
}
module.exports = SummaryReporter;
