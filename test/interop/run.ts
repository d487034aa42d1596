// `npm run test:interop`: real SOAP clients generated from our ?wsdl, run
// against the service over a logging relay. Options:
//   --client=NAME       only that client (repeatable)
//   --no-install        do not apt-get what is missing (those clients fail)
//   --update-fixtures   write the recorded requests to test/interop/fixtures
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { CLIENTS } from './clients';
import { ensureInstalled } from './prerequisites';
import { compareWithFixtures, exchangeLog, pickRecordings, writeFixtures, writeRecordings, type Recording } from './recordings';
import { startRelay } from './relay';
import { printCheck, printSummary, type CheckResult } from './report';
import { runClient } from './run-client';
import { FIXTURES_DIR, GENERATED_DIR } from './paths';
import { startSeededService } from './service';

interface Options {
  readonly clients: readonly string[];
  readonly install: boolean;
  readonly updateFixtures: boolean;
}

function parseOptions(args: readonly string[]): Options {
  const clients: string[] = [];
  let install = true;
  let updateFixtures = false;
  for (const arg of args) {
    if (arg.startsWith('--client=')) clients.push(arg.slice('--client='.length));
    else if (arg === '--no-install') install = false;
    else if (arg === '--update-fixtures') updateFixtures = true;
    else throw new Error(`unknown option ${arg}`);
  }
  const unknown = clients.filter((name) => !CLIENTS.some((client) => client.name === name));
  if (unknown.length > 0) throw new Error(`unknown client ${unknown.join(', ')}; known: ${CLIENTS.map((c) => c.name).join(', ')}`);
  return { clients, install, updateFixtures };
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const started = Date.now();
  const clients = CLIENTS.filter((client) => options.clients.length === 0 || options.clients.includes(client.name));
  const log = (line: string) => process.stdout.write(`${line}\n`);
  mkdirSync(GENERATED_DIR, { recursive: true });

  const readiness = await ensureInstalled(clients, options.install, log);
  const service = await startSeededService();
  const results: CheckResult[] = [];
  const recordings: Recording[] = [];
  try {
    for (const client of clients) {
      log(`\n${client.title} (${client.name})`);
      // A relay per client, so that every request it records is this client's.
      const relay = await startRelay(service.port);
      try {
        results.push(...(await runClient(client, relay.baseUrl, readiness.get(client.name) ?? null, printCheck)));
      } finally {
        await relay.close();
      }
      recordings.push(...pickRecordings(client.name, relay.exchanges()));
      writeFileSync(path.join(GENERATED_DIR, `${client.name}-exchanges.log`), exchangeLog(relay.exchanges()));
    }
  } finally {
    await service.close();
  }

  reportFixtures(recordings, clients.map((client) => client.name), options.updateFixtures, log);
  printSummary(results, clients, Date.now() - started);
  process.exitCode = results.every((result) => result.passed) ? 0 : 1;
}

function reportFixtures(recordings: readonly Recording[], clients: readonly string[], update: boolean, log: (line: string) => void): void {
  const recordedDir = path.join(GENERATED_DIR, 'recorded');
  writeRecordings(recordings, recordedDir);
  if (update) {
    const written = writeFixtures(recordings, clients, FIXTURES_DIR);
    log(`\nFixtures: ${written} of ${recordings.length} recorded requests were new or changed; written to ${path.relative(process.cwd(), FIXTURES_DIR)}`);
    return;
  }
  const { unchanged, changed, added } = compareWithFixtures(recordings, FIXTURES_DIR);
  log(`\nFixtures: ${unchanged.length} recorded requests as committed, ${changed.length} differ, ${added.length} new (this run's are in ${path.relative(process.cwd(), recordedDir)})`);
  for (const name of [...changed, ...added]) log(`  ${changed.includes(name) ? 'differs' : 'new'}: ${name} (npm run test:interop -- --update-fixtures to keep it)`);
}

main().catch((err: unknown) => {
  process.stderr.write(`The interop suite could not run: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.stdout.write('0 passed, 1 failed\n');
  process.exitCode = 1;
});
