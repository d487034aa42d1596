// One client through every binding it supports: generate it from our WSDLs,
// run its driver per binding, and turn each call it reports into a check.
// Whatever goes wrong (not installed, generator refuses the WSDL, driver
// crashes) becomes failed checks with the reason, never a crashed suite.
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { CALLS, type Binding } from './calls';
import type { InteropClient } from './clients';
import type { Prepared } from './clients/client';
import { readDriverOutput } from './driver-output';
import { judge } from './judge';
import { GENERATED_DIR } from './paths';
import { MINUTE, failureOf, run } from './process';
import type { CheckResult } from './report';

const DRIVER_TIMEOUT_MS = 3 * MINUTE;

export async function runClient(
  client: InteropClient,
  baseUrl: string,
  notReady: string | null,
  onResult: (result: CheckResult) => void,
): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  const report = (result: CheckResult) => {
    results.push(result);
    onResult(result);
  };
  const failAll = (binding: Binding, detail: string) => {
    for (const call of CALLS) report({ client: client.name, binding, call: call.name, passed: false, detail });
  };

  if (notReady !== null) {
    for (const binding of client.bindings) failAll(binding, notReady);
    return results;
  }

  const workDir = path.join(GENERATED_DIR, client.name);
  rmSync(workDir, { recursive: true, force: true });
  mkdirSync(workDir, { recursive: true });
  let prepared: ReadonlyMap<Binding, Prepared>;
  try {
    prepared = await client.prepare({ baseUrl, workDir });
  } catch (err) {
    for (const binding of client.bindings) failAll(binding, `generating the client failed: ${err instanceof Error ? err.message : String(err)}`);
    return results;
  }

  for (const binding of client.bindings) {
    const ready = prepared.get(binding) ?? { ok: false, message: 'the client prepared nothing for this binding' };
    if (!ready.ok) {
      failAll(binding, ready.message);
      continue;
    }
    const completed = await run(ready.driver, DRIVER_TIMEOUT_MS);
    const output = readDriverOutput(completed.stdout);
    // Said once per check that lacks a result: why the driver stopped, with its last words.
    const whyMissing = () =>
      `the driver reported no result for this call. ${failureOf(ready.driver, completed) ?? ''}\n${[...output.other, completed.stderr].join('\n').trim().split('\n').slice(-10).join('\n')}`.trim();
    for (const call of CALLS) {
      const line = output.lines.find((each) => each.binding === binding && each.call === call.name);
      const verdict = line === undefined ? { passed: false, detail: whyMissing() } : judge(call, line, client.faultType(binding));
      report({ client: client.name, binding, call: call.name, ...verdict });
    }
  }
  return results;
}
