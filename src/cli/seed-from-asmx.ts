// npm run import -- --from-asmx URL --schools FILE [options]: the store seeded
// from the legacy service's two read operations
// (docs/migration.md#seed-from-the-legacy-service).
import path from 'node:path';
import { formatImportReport, terminalProgress } from '../import';
import {
  LegacyServiceError,
  readSchoolsFile,
  SchoolsFileError,
  SeedStateError,
  seedFromLegacy,
  type SeedProgress,
} from '../legacy-kit/seed';
import { askSecret } from './ask-secret';
import { fromInvocation } from './args';
import { storeFromConfig } from './store-from-config';

export const SEED_USAGE = `Usage: npm run import -- --from-asmx URL --schools FILE [options]

Seeds the store (DATABASE_URL or DATA_DIR) from a running legacy service at
URL, through its read operations only: GetStudentSchool (show_active 1 and 0)
for every school of FILE (one base URL a line, optionally followed by the
school's name), then GetTokenDevice for every device id found. Each school is
written in one transaction, then checkpointed in the state file: a second run
skips the schools written and fetches the rest.

  --state FILE         the checkpoint (default: the schools file's path + .seed-state.jsonl)
  --refresh            fetch every school again, even those the checkpoint has
  --dry-run            fetch and check every school, write nothing
  --concurrency N      calls in flight at most (default 4, at most 64)
  --rate N             calls started per second at most; 0 for no limit (default 50)
  --timeout SECONDS    one call's limit, its answer included (default 30)
  --retries N          retries of a call on a 5xx, a timeout or a dropped connection (default 3)
  --max-students N     refuse a school whose lists hold more (default 20000)
  --user NAME          Basic credentials for a legacy behind IIS Basic; the password
                       from ASMX_PASSWORD, else asked (or one line of stdin)

Exit code: 0 every school and row seeded; 1 rows rejected, schools not read, or
the legacy service unusable; 2 usage or configuration.
`;

interface Numeric {
  readonly min: number;
  readonly max: number;
  readonly fallback: number;
}

const NUMBERS: Readonly<Record<string, Numeric>> = {
  '--concurrency': { min: 1, max: 64, fallback: 4 },
  '--rate': { min: 0, max: 10_000, fallback: 50 },
  '--timeout': { min: 1, max: 600, fallback: 30 },
  '--retries': { min: 0, max: 10, fallback: 3 },
  '--max-students': { min: 1, max: 1_000_000, fallback: 20_000 },
};
const TEXTS = ['--from-asmx', '--schools', '--state', '--user'];
const FLAGS = ['--refresh', '--dry-run'];
// Room for one StudentInfo at the store's longest values, in UTF-8, with its markup.
const BYTES_PER_STUDENT = 2048;
const NON_TTY_EVERY = 10;

export async function seedMain(args: readonly string[]): Promise<number> {
  const texts = new Map<string, string>();
  const numbers = new Map<string, number>();
  const flags = new Set<string>();
  const problems: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    const eq = arg.indexOf('=');
    const name = arg.startsWith('--') && eq > 0 ? arg.slice(0, eq) : arg;
    if (FLAGS.includes(name)) {
      flags.add(name);
      continue;
    }
    if (!TEXTS.includes(name) && !Object.hasOwn(NUMBERS, name)) {
      problems.push(`Unknown option ${name}.`);
      continue;
    }
    const value = name === arg ? args[++i] : arg.slice(eq + 1);
    if (value === undefined || value === '') {
      problems.push(`${name} needs a value.`);
      continue;
    }
    const numeric = NUMBERS[name];
    if (numeric === undefined) texts.set(name, value);
    else {
      const n = Number(value);
      if (!Number.isFinite(n) || n < numeric.min || n > numeric.max || (name !== '--rate' && !Number.isInteger(n)))
        problems.push(`${name} takes a number from ${numeric.min} to ${numeric.max}.`);
      else numbers.set(name, n);
    }
  }
  const legacyUrl = texts.get('--from-asmx');
  const schoolsFile = texts.get('--schools');
  if (legacyUrl === undefined) problems.push('--from-asmx URL is required.');
  else if (!isHttpUrl(legacyUrl))
    problems.push(
      '--from-asmx takes the legacy service base URL (http:// or https://, no credentials: use --user NAME with the password in ASMX_PASSWORD).',
    );
  if (schoolsFile === undefined) problems.push('--schools FILE is required.');
  if (problems.length > 0 || legacyUrl === undefined || schoolsFile === undefined) {
    process.stderr.write(`${problems.join('\n')}\n\n${SEED_USAGE}`);
    return 2;
  }
  const number = (name: string) => numbers.get(name) ?? NUMBERS[name]?.fallback ?? 0;
  const schoolsPath = fromInvocation(schoolsFile);
  const statePath = fromInvocation(texts.get('--state') ?? `${schoolsFile}.seed-state.jsonl`);

  let schools;
  try {
    schools = await readSchoolsFile(schoolsPath);
  } catch (error) {
    if (!(error instanceof SchoolsFileError)) throw error;
    process.stderr.write(`${error.message}\n`);
    return 2;
  }
  const user = texts.get('--user');
  let credentials: { user: string; password: string } | undefined;
  if (user !== undefined) {
    const fromEnv = process.env.ASMX_PASSWORD;
    const password =
      fromEnv !== undefined && fromEnv !== '' ? fromEnv : await askSecret(`Password of ${user} at ${legacyUrl}: `);
    credentials = { user, password };
  }

  const maxStudents = number('--max-students');
  const store = await storeFromConfig();
  try {
    const result = await seedFromLegacy(store.dataSet, {
      baseUrl: legacyUrl,
      schools,
      statePath,
      refresh: flags.has('--refresh'),
      dryRun: flags.has('--dry-run'),
      concurrency: number('--concurrency'),
      rate: number('--rate'),
      timeoutMs: number('--timeout') * 1000,
      retries: number('--retries'),
      backoffMs: 500,
      credentials,
      maxStudents,
      maxListBytes: maxStudents * BYTES_PER_STUDENT + 64 * 1024,
      progress: seedProgress(path.basename(statePath)),
    });
    process.stdout.write(formatImportReport(result.report));
    process.stdout.write(
      `Seeded from ${legacyUrl}: ${result.fetched} schools fetched (${result.students.toLocaleString('en-US')} students listed), ${result.skipped} skipped as already written, ${result.failed} not seeded.\n`,
    );
    return result.report.complete && result.failed === 0 ? 0 : 1;
  } catch (error) {
    if (error instanceof LegacyServiceError || error instanceof SeedStateError) {
      process.stderr.write(`${error.message}\n`);
      return 1;
    }
    throw error;
  } finally {
    await store.lifecycle.close();
  }
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.username === '' && url.password === '';
  } catch {
    return false;
  }
}

/** A bar on a terminal; otherwise a line every few schools. Counts only. */
function seedProgress(stateName: string, stream: NodeJS.WriteStream = process.stderr): SeedProgress {
  const bar = stream.isTTY === true ? terminalProgress(stream) : null;
  return {
    start(total, skipped) {
      if (skipped > 0)
        stream.write(`${skipped} schools already written (checkpoint ${stateName}); --refresh fetches them again.\n`);
      bar?.stage(`seeding ${total} schools`, total);
    },
    school({ done, total, students, failed }) {
      if (bar !== null) bar.update(done);
      else if (done % NON_TTY_EVERY === 0 || done === total)
        stream.write(
          `seeded ${done}/${total} schools: ${students.toLocaleString('en-US')} students, ${failed} not seeded\n`,
        );
    },
    finish() {
      bar?.done();
    },
  };
}
