// What the run prints: each check by name as it is decided, then the counts
// per client and binding, the time taken and the closing summary line.
import { BINDING_LABEL, RUNS, type Binding, type Run } from './calls';
import type { InteropClient } from './clients';

export interface CheckResult {
  readonly run: Run;
  readonly client: string;
  readonly binding: Binding;
  readonly call: string;
  readonly passed: boolean;
  readonly detail?: string;
}

/** `dotnet SOAP 1.1 GetTokenDevice`; the auth run's checks start with `auth`. */
export function checkName(result: Pick<CheckResult, 'run' | 'client' | 'binding' | 'call'>): string {
  return `${result.run === 'plain' ? '' : `${result.run} `}${result.client} ${BINDING_LABEL[result.binding]} ${result.call}`;
}

export function printCheck(result: CheckResult): void {
  const detail = result.detail === undefined ? '' : `\n${result.detail.replace(/^/gm, '        ')}`;
  process.stdout.write(`  ${result.passed ? 'PASS' : 'FAIL'}  ${checkName(result)}${detail}\n`);
}

export function printSummary(
  results: readonly CheckResult[],
  clients: readonly InteropClient[],
  elapsedMs: number,
): void {
  for (const run of RUNS) {
    const ofRun = results.filter((r) => r.run === run);
    if (ofRun.length === 0) continue;
    process.stdout.write(`\nPer client and binding, ${run} run (passed/checks):\n`);
    for (const client of clients) {
      const cells = client.bindings.map((binding) => {
        const ofBinding = ofRun.filter((r) => r.client === client.name && r.binding === binding);
        return `${BINDING_LABEL[binding]} ${ofBinding.filter((r) => r.passed).length}/${ofBinding.length}`;
      });
      process.stdout.write(`  ${client.name.padEnd(7)} ${cells.join('   ')}   (${client.title})\n`);
    }
  }
  const failed = results.filter((r) => !r.passed);
  if (failed.length > 0) {
    process.stdout.write('\nFailed:\n');
    for (const result of failed) process.stdout.write(`  ${checkName(result)}\n`);
  }
  process.stdout.write(`\nTime: ${(elapsedMs / 1000).toFixed(1)} s\n`);
  // The closing line, alone and exactly so: CI and people read it without parsing the rest.
  process.stdout.write(`${results.length - failed.length} passed, ${failed.length} failed\n`);
}
