// One client through every binding it supports: generate it from our WSDLs,
// run its driver per binding, and turn each call it reports into a check.
// Whatever goes wrong (not installed, generator refuses the WSDL, driver
// crashes) becomes failed checks with the reason, never a crashed suite.
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { REFUSED_CALL, callsOf, type Binding, type Run } from './calls';
import type { InteropClient } from './clients';
import type { Credentials, Prepared } from './clients/client';
import { readDriverOutput } from './driver-output';
import { judge, type RefusalOnWire } from './judge';
import { GENERATED_DIR } from './paths';
import { MINUTE, failureOf, run } from './process';
import { headerValue, statusOf } from '../support/http-messages';
import type { Exchange } from './relay';
import type { CheckResult } from './report';

const DRIVER_TIMEOUT_MS = 3 * MINUTE;

export interface ClientRun {
  readonly run: Run;
  /** The relay's address. */
  readonly baseUrl: string;
  /** The auth run's Basic user: given to the generator and, as INTEROP_USER and INTEROP_PASSWORD, to the driver. */
  readonly credentials?: Credentials;
  /** Every exchange the relay has recorded so far (this client's only). */
  readonly exchanges: () => readonly Exchange[];
}

export async function runClient(
  client: InteropClient,
  { run: which, baseUrl, credentials, exchanges }: ClientRun,
  notReady: string | null,
  onResult: (result: CheckResult) => void,
): Promise<CheckResult[]> {
  const calls = callsOf(which);
  const results: CheckResult[] = [];
  const report = (result: CheckResult) => {
    results.push(result);
    onResult(result);
  };
  const failAll = (binding: Binding, detail: string) => {
    for (const call of calls)
      report({ run: which, client: client.name, binding, call: call.name, passed: false, detail });
  };

  if (notReady !== null) {
    for (const binding of client.bindings) failAll(binding, notReady);
    return results;
  }

  const workDir = path.join(GENERATED_DIR, which === 'plain' ? client.name : `${client.name}-${which}`);
  rmSync(workDir, { recursive: true, force: true });
  mkdirSync(workDir, { recursive: true });
  let prepared: ReadonlyMap<Binding, Prepared>;
  try {
    prepared = await client.prepare({ baseUrl, workDir, credentials });
  } catch (err) {
    for (const binding of client.bindings)
      failAll(binding, `generating the client failed: ${err instanceof Error ? err.message : String(err)}`);
    return results;
  }

  for (const binding of client.bindings) {
    const ready = prepared.get(binding) ?? { ok: false, message: 'the client prepared nothing for this binding' };
    if (!ready.ok) {
      failAll(binding, ready.message);
      continue;
    }
    // Credentials reach the driver only in the auth run: without them it runs the plain calls.
    const driver =
      credentials === undefined
        ? ready.driver
        : {
            ...ready.driver,
            env: { ...ready.driver.env, INTEROP_USER: credentials.user, INTEROP_PASSWORD: credentials.password },
          };
    const before = exchanges().length;
    const completed = await run(driver, DRIVER_TIMEOUT_MS);
    const refusal = refusalOnWire(exchanges().slice(before), REFUSED_CALL.operation);
    const output = readDriverOutput(completed.stdout);
    // Said once per check that lacks a result: why the driver stopped, with its last words.
    const whyMissing = () =>
      `the driver reported no result for this call. ${failureOf(driver, completed) ?? ''}\n${[...output.other, completed.stderr].join('\n').trim().split('\n').slice(-10).join('\n')}`.trim();
    const types = { fault: client.faultType(binding), unauthorized: client.unauthorizedType(binding) };
    for (const call of calls) {
      const line = output.lines.find((each) => each.binding === binding && each.call === call.name);
      const verdict = line === undefined ? { passed: false, detail: whyMissing() } : judge(call, line, types, refusal);
      report({ run: which, client: client.name, binding, call: call.name, ...verdict });
    }
  }
  return results;
}

/**
 * The refused call as the relay saw it: the driver makes it last, so it is the last request of the
 * driver's run that names the operation (in its target, SOAPAction, content type or body).
 * Null when there is none, or when that request carried credentials (then it was not the refused call).
 */
function refusalOnWire(exchanges: readonly Exchange[], operation: string): RefusalOnWire | null {
  const names = new RegExp(`\\b${operation}\\b`);
  const mine = exchanges.filter(({ request }) =>
    names.test(
      `${request.head.startLine}\n${request.head.headers.map(([n, v]) => `${n}: ${v}`).join('\n')}\n${request.body.toString('utf8')}`,
    ),
  );
  const last = mine.at(-1);
  if (last === undefined || last.response === null || headerValue(last.request.head, 'authorization') !== undefined)
    return null;
  return { status: statusOf(last.response.head), challenge: headerValue(last.response.head, 'www-authenticate') };
}
