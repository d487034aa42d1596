// `npm run test:interop`: real SOAP clients generated from our ?wsdl, run
// against the service over a logging relay. Options:
//   --client=NAME       only that client (repeatable)
//   --no-install        do not apt-get what is missing (those clients fail)
//   --update-fixtures   write the recorded requests to test/interop/fixtures
//   --run=plain|auth    only that run (repeatable); both by default. The auth
//                       run fails at once when the service does not refuse a
//                       WSDL request without credentials.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { RUNS, type Run } from './calls';
import { CLIENTS, type InteropClient } from './clients';
import type { Credentials } from './clients/client';
import { newCredentials, policyNotEnforced, writePolicy } from './policy';
import { ensureInstalled, type Readiness } from './prerequisites';
import {
  compareWithFixtures,
  exchangeLog,
  pickRecordings,
  writeFixtures,
  writeRecordings,
  type Recording,
} from './recordings';
import { startRelay, type Exchange } from './relay';
import { printCheck, printSummary, type CheckResult } from './report';
import { runClient } from './run-client';
import { FIXTURES_DIR, GENERATED_DIR } from './paths';
import { startSeededService } from './service';

interface Options {
  readonly clients: readonly string[];
  readonly runs: readonly Run[];
  readonly install: boolean;
  readonly updateFixtures: boolean;
}

function parseOptions(args: readonly string[]): Options {
  const clients: string[] = [];
  const runs: Run[] = [];
  let install = true;
  let updateFixtures = false;
  for (const arg of args) {
    if (arg.startsWith('--client=')) clients.push(arg.slice('--client='.length));
    else if (arg.startsWith('--run=')) runs.push(parseRun(arg.slice('--run='.length)));
    else if (arg === '--no-install') install = false;
    else if (arg === '--update-fixtures') updateFixtures = true;
    else throw new Error(`unknown option ${arg}`);
  }
  const unknown = clients.filter((name) => !CLIENTS.some((client) => client.name === name));
  if (unknown.length > 0)
    throw new Error(`unknown client ${unknown.join(', ')}; known: ${CLIENTS.map((c) => c.name).join(', ')}`);
  if (updateFixtures && runs.length > 0 && !runs.includes('plain'))
    throw new Error("--update-fixtures keeps the plain run's requests: add --run=plain");
  return { clients, runs: runs.length === 0 ? RUNS : runs, install, updateFixtures };
}

function parseRun(name: string): Run {
  const run = RUNS.find((each) => each === name);
  if (run === undefined) throw new Error(`unknown run ${name}; known: ${RUNS.join(', ')}`);
  return run;
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const started = Date.now();
  const clients = CLIENTS.filter((client) => options.clients.length === 0 || options.clients.includes(client.name));
  const log = (line: string) => process.stdout.write(`${line}\n`);
  mkdirSync(GENERATED_DIR, { recursive: true });

  const readiness = await ensureInstalled(clients, options.install, log);
  const results: CheckResult[] = [];
  if (options.runs.includes('plain')) {
    log('\n== Plain run: the service without an access policy');
    const service = await startSeededService();
    const recordings: Recording[] = [];
    try {
      for (const client of clients) {
        const exchanges = await runOneClient(client, readiness, { run: 'plain', port: service.port }, results, log);
        if (client.fixtures !== false) recordings.push(...pickRecordings(client.name, exchanges));
      }
    } finally {
      await service.close();
    }
    // The fixtures are the plain run's requests only: the auth run's carry an Authorization header.
    const recorded = clients.filter((client) => client.fixtures !== false).map((client) => client.name);
    reportFixtures(recordings, recorded, options.updateFixtures, log);
  }
  if (options.runs.includes('auth')) await authRun(clients, readiness, results, log);

  printSummary(results, clients, Date.now() - started);
  process.exitCode = results.every((result) => result.passed) ? 0 : 1;
}

/** The auth run; it throws (the suite fails) when the service does not enforce the policy. */
async function authRun(
  clients: readonly InteropClient[],
  readiness: Readiness,
  results: CheckResult[],
  log: (line: string) => void,
): Promise<void> {
  log('\n== Auth run: every operation and ?wsdl require HTTP Basic');
  const credentials = newCredentials();
  const service = await startSeededService({ accessPolicy: writePolicy(GENERATED_DIR, credentials) });
  try {
    const notEnforced = await policyNotEnforced(service.port);
    if (notEnforced !== null) throw new Error(`the access policy is not enforced: ${notEnforced}`);
    for (const client of clients)
      await runOneClient(client, readiness, { run: 'auth', port: service.port, credentials }, results, log);
  } finally {
    await service.close();
  }
}

/** One client through a relay of its own, so that every request the relay records is this client's. */
async function runOneClient(
  client: InteropClient,
  readiness: Readiness,
  target: { readonly run: Run; readonly port: number; readonly credentials?: Credentials },
  results: CheckResult[],
  log: (line: string) => void,
): Promise<readonly Exchange[]> {
  log(`\n${client.title} (${client.name}${target.run === 'plain' ? '' : `, ${target.run} run`})`);
  const relay = await startRelay(target.port);
  try {
    results.push(
      ...(await runClient(
        client,
        { run: target.run, baseUrl: relay.baseUrl, credentials: target.credentials, exchanges: relay.exchanges },
        readiness.get(client.name) ?? null,
        printCheck,
      )),
    );
  } finally {
    await relay.close();
  }
  const exchanges = relay.exchanges();
  const suffix = target.run === 'plain' ? '' : `-${target.run}`;
  writeFileSync(path.join(GENERATED_DIR, `${client.name}${suffix}-exchanges.log`), exchangeLog(exchanges));
  if (target.run === 'auth') {
    // How the client met Basic: a client that waits for the challenge shows as many 401s as calls.
    const challenged = exchanges.filter((exchange) =>
      /^HTTP\/1\.[01] 401\b/.test(exchange.response?.head.startLine ?? ''),
    ).length;
    log(`  ${exchanges.length} requests, ${challenged} answered 401 (challenges answered and the refused calls)`);
  }
  return exchanges;
}

function reportFixtures(
  recordings: readonly Recording[],
  clients: readonly string[],
  update: boolean,
  log: (line: string) => void,
): void {
  const recordedDir = path.join(GENERATED_DIR, 'recorded');
  writeRecordings(recordings, recordedDir);
  if (update) {
    const written = writeFixtures(recordings, clients, FIXTURES_DIR);
    log(
      `\nFixtures: ${written} of ${recordings.length} recorded requests were new or changed; written to ${path.relative(process.cwd(), FIXTURES_DIR)}`,
    );
    return;
  }
  const { unchanged, changed, added } = compareWithFixtures(recordings, FIXTURES_DIR);
  log(
    `\nFixtures: ${unchanged.length} recorded requests as committed, ${changed.length} differ, ${added.length} new (this run's are in ${path.relative(process.cwd(), recordedDir)})`,
  );
  for (const name of [...changed, ...added])
    log(
      `  ${changed.includes(name) ? 'differs' : 'new'}: ${name} (npm run test:interop -- --update-fixtures to keep it)`,
    );
}

main().catch((err: unknown) => {
  process.stderr.write(
    `The interop suite could not run: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
  );
  process.stdout.write('0 passed, 1 failed\n');
  process.exitCode = 1;
});
