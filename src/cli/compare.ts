// npm run compare -- --primary URL [--secondary URL] --candidate URL [--data FILE] [--requests FILE] [--ignore FILE] [--report DIR]
// (docs/migration.md#compare)
import './node-guard';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline/promises';
import { ENDPOINTS } from '../contract';
import { readSource } from '../import';
import {
  classifyRequest,
  hasUnexplained,
  htmlReport,
  jsonReport,
  NO_DATA,
  operationKind,
  parseRequestLines,
  planRequests,
  readIgnoreFile,
  readWsdlOperations,
  runComparison,
  sendRequest,
  summaryText,
  WRITE_OPERATIONS,
  type DescribedEndpoint,
  type IgnoreRule,
  type KnownData,
  type PlannedRequest,
  type Servers,
} from '../legacy-kit/compare';
import { answerHelpOrVersion, fromInvocation } from './args';
import { askSecret } from './ask-secret';
import { runCommand } from './store-from-config';

const USAGE = `Usage: npm run compare -- --primary URL [--secondary URL] --candidate URL
                           [--data FILE]... [--requests FILE] [--ignore FILE]... [--report DIR]
                           [--include-writes [--yes]] [--concurrency N] [--timeout-ms N]
                           [--user NAME] [--candidate-user NAME] [--no-asmx-differences]

Sends the same requests to the primary (the legacy service), the candidate
(this service) and, with --secondary, a second instance of the primary, and
compares the answers: status, the headers that matter, the body byte for byte,
else as XML.

  --primary URL      the service answers are compared against (http://legacy.example)
  --candidate URL    the service compared with it
  --secondary URL    another instance of the primary: differences it shows too are noise
  --data FILE        a data file in the import format (CSV or JSON) naming ids,
                     devices and schools the primary holds; repeatable
  --requests FILE    replay these requests (JSON Lines of {method, path, headers, body},
                     as RECORD_REQUESTS writes) instead of generating them from ?wsdl
  --ignore FILE      more accepted differences (YAML or JSON); repeatable
  --no-asmx-differences
                     do not accept this service's deliberate differences from
                     ASMX (docs/asmx-differences.yaml), which apply by default
  --report DIR       write report.html and report.json there (mode 0600)
  --user NAME        Basic credentials for the primary and the secondary; the
                     password from COMPARE_PASSWORD, else asked (or one line of stdin)
  --candidate-user NAME
                     Basic credentials for the candidate; the password from
                     COMPARE_CANDIDATE_PASSWORD, else asked
  --include-writes   also send ${WRITE_OPERATIONS.join(', ')}: asks first on a terminal
  --yes              with --include-writes: do not ask
  --concurrency N    requests in flight (default 4)
  --timeout-ms N     longest wait for one answer (default 10000)

A URL holding a user or password is refused: it would be shown and written
into the reports.

Exit code: 0 nothing unexplained differs; 1 differences (or a server did not
answer); 2 usage, unreadable files, or writes not confirmed (nothing sent).
`;

const VALUE_OPTIONS = new Set([
  '--primary',
  '--secondary',
  '--candidate',
  '--data',
  '--requests',
  '--ignore',
  '--report',
  '--concurrency',
  '--timeout-ms',
  '--user',
  '--candidate-user',
]);
const MAX_ANSWER_BYTES = 32 * 1024 * 1024;
const MAX_REQUESTS_FILE = 256 * 1024 * 1024;

/** This service's deliberate differences from ASMX, applied unless --no-asmx-differences (docs/migration.md#compare). */
export const ASMX_DIFFERENCES = path.resolve(__dirname, '../../docs/asmx-differences.yaml');

class UsageError extends Error {}

interface Options {
  readonly servers: Servers;
  readonly data: readonly string[];
  readonly requests: string | null;
  readonly ignore: readonly string[];
  readonly report: string | null;
  readonly includeWrites: boolean;
  readonly yes: boolean;
  readonly concurrency: number;
  readonly timeoutMs: number;
  readonly user: string | null;
  readonly candidateUser: string | null;
}

/** How the command asks for confirmation; tests give their own. */
export interface CompareIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  /** Null when there is no terminal to ask on. */
  readonly ask: ((question: string) => Promise<string>) | null;
  /** Asks for a password without echo (or reads stdin's first line); left out, askSecret. */
  readonly secret?: (prompt: string) => Promise<string>;
  /** Where COMPARE_PASSWORD and COMPARE_CANDIDATE_PASSWORD are read; left out, process.env. */
  readonly env?: NodeJS.ProcessEnv;
}

const processIo: CompareIo = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  ask:
    process.stdin.isTTY && process.stdout.isTTY
      ? async (question) => {
          const rl = createInterface({ input: process.stdin, output: process.stdout });
          try {
            return await rl.question(question);
          } finally {
            rl.close();
          }
        }
      : null,
};

export async function main(args: readonly string[], io: CompareIo = processIo): Promise<number> {
  if (answerHelpOrVersion(args, USAGE, io.stdout)) return 0;
  let options: Options;
  let rules: IgnoreRule[];
  try {
    options = parseArgs(args);
    rules = options.ignore.flatMap((file) => readIgnoreFile(file));
  } catch (err) {
    io.stderr(`${(err as Error).message}\n${err instanceof UsageError ? `\n${USAGE}` : ''}`);
    return 2;
  }
  const { servers } = options;
  if (options.includeWrites && !(await confirmWrites(options, io))) return 2;
  const authorization = await credentials(options, io);

  let requests: PlannedRequest[];
  try {
    requests =
      options.requests === null
        ? await generatedRequests(options, await knownData(options.data), authorization.primary)
        : replayedRequests(options.requests, options.includeWrites, io);
  } catch (err) {
    io.stderr(`${(err as Error).message}\n`);
    return 2;
  }
  const result = await runComparison({
    servers,
    requests,
    rules,
    concurrency: options.concurrency,
    timeoutMs: options.timeoutMs,
    maxAnswerBytes: MAX_ANSWER_BYTES,
    authorization,
  });
  io.stdout(summaryText(result));
  if (options.report !== null) {
    mkdirSync(options.report, { recursive: true, mode: 0o700 });
    // The answers hold children's names and tokens: the reports are their owner's only.
    writePrivate(path.join(options.report, 'report.html'), htmlReport(result));
    writePrivate(path.join(options.report, 'report.json'), `${JSON.stringify(jsonReport(result), null, 2)}\n`);
    io.stdout(`Reports: ${path.join(options.report, 'report.html')}, ${path.join(options.report, 'report.json')}\n`);
  }
  return hasUnexplained(result) ? 1 : 0;
}

/** Writes `text` to `file` with mode 0600, an existing file's mode included (a mode given to writeFileSync applies only to a new file). */
function writePrivate(file: string, text: string): void {
  writeFileSync(file, text, { mode: 0o600 });
  chmodSync(file, 0o600);
}

/** The Authorization header of each server given a user; the password from the environment, else asked. */
async function credentials(options: Options, io: CompareIo): Promise<Partial<Record<keyof Servers, string>>> {
  const env = io.env ?? process.env;
  const ask = io.secret ?? askSecret;
  const basic = async (user: string, variable: string, server: string) => {
    const fromEnv = env[variable];
    const password =
      fromEnv !== undefined && fromEnv !== '' ? fromEnv : await ask(`Password of ${user} at ${server}: `);
    return `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}`;
  };
  const authorization: Partial<Record<keyof Servers, string>> = {};
  if (options.user !== null) {
    authorization.primary = await basic(options.user, 'COMPARE_PASSWORD', options.servers.primary);
    if (options.servers.secondary !== undefined) authorization.secondary = authorization.primary;
  }
  if (options.candidateUser !== null)
    authorization.candidate = await basic(
      options.candidateUser,
      'COMPARE_CANDIDATE_PASSWORD',
      options.servers.candidate,
    );
  return authorization;
}

function parseArgs(args: readonly string[]): Options {
  const values = new Map<string, string[]>();
  const flags = new Set<string>();
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    const [name, inline] =
      arg.startsWith('--') && arg.includes('=')
        ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)]
        : [arg, undefined];
    if (VALUE_OPTIONS.has(name)) {
      const value = inline ?? args[++i];
      if (value === undefined || value === '') throw new UsageError(`${name} takes a value.`);
      values.set(name, [...(values.get(name) ?? []), value]);
    } else if (arg === '--include-writes' || arg === '--yes' || arg === '--no-asmx-differences') flags.add(arg);
    else throw new UsageError(`Unknown argument ${arg}.`);
  }
  const one = (name: string): string | null => {
    const list = values.get(name) ?? [];
    if (list.length > 1) throw new UsageError(`${name} is given twice.`);
    return list[0] ?? null;
  };
  const url = (name: string): string | null => {
    const value = one(name);
    if (value === null) return null;
    if (!/^https?:\/\/[^\s/]+/.test(value) || !URL.canParse(value))
      throw new UsageError(`${name} must be an http:// or https:// URL.`);
    // Refused rather than stripped, and never repeated: the URL would be
    // printed and written into the reports, and Node would send it as Basic.
    const parsed = new URL(value);
    if (parsed.username !== '' || parsed.password !== '')
      throw new UsageError(
        `${name} must not hold a user or password (it would be shown and written into the reports): ` +
          `give ${name === '--candidate' ? '--candidate-user NAME, the password in COMPARE_CANDIDATE_PASSWORD' : '--user NAME, the password in COMPARE_PASSWORD'}.`,
      );
    return value.replace(/\/+$/, '');
  };
  const number = (name: string, fallback: number, max: number): number => {
    const value = one(name);
    if (value === null) return fallback;
    if (!/^[0-9]+$/.test(value) || Number(value) < 1 || Number(value) > max)
      throw new UsageError(`${name} must be a whole number from 1 to ${max}.`);
    return Number(value);
  };
  const userName = (name: string): string | null => {
    const value = one(name);
    if (value !== null && !/^[^:\s]{1,64}$/.test(value))
      throw new UsageError(`${name} takes a user name without colons or spaces.`);
    return value;
  };
  const primary = url('--primary');
  const candidate = url('--candidate');
  const secondary = url('--secondary');
  if (primary === null || candidate === null) throw new UsageError('Give --primary and --candidate.');
  const requests = one('--requests');
  if (requests !== null && values.has('--data'))
    throw new UsageError('--data is for generated requests, not with --requests.');
  const report = one('--report');
  return {
    servers: secondary === null ? { primary, candidate } : { primary, secondary, candidate },
    data: (values.get('--data') ?? []).map((file) => fromInvocation(file)),
    requests: requests === null ? null : fromInvocation(requests),
    // The deliberate differences first: a run that names none reports only what nobody meant.
    ignore: [
      ...(flags.has('--no-asmx-differences') ? [] : [ASMX_DIFFERENCES]),
      ...(values.get('--ignore') ?? []).map((file) => fromInvocation(file)),
    ].filter((file, i, all) => all.indexOf(file) === i),
    report: report === null ? null : fromInvocation(report),
    includeWrites: flags.has('--include-writes'),
    yes: flags.has('--yes'),
    concurrency: number('--concurrency', 4, 64),
    timeoutMs: number('--timeout-ms', 10_000, 600_000),
    user: userName('--user'),
    candidateUser: userName('--candidate-user'),
  };
}

/** Says which writes go to which servers; true to go on. Without a terminal and without --yes, nothing is sent. */
async function confirmWrites(options: Options, io: CompareIo): Promise<boolean> {
  const servers = [options.servers.primary, options.servers.secondary, options.servers.candidate].filter(
    (s): s is string => s !== undefined,
  );
  io.stderr(
    `--include-writes: ${WRITE_OPERATIONS.join(', ')} will be sent to ${servers.join(', ')}` +
      `${options.requests === null ? ' (AuthCode only with a phone number no country has: no SMS)' : ' (as recorded in ' + options.requests + ')'}.\n` +
      'They change data and may send notifications on each server.\n',
  );
  if (options.yes) return true;
  if (io.ask === null) {
    io.stderr('Not confirmed (no terminal to ask on; add --yes): nothing was sent.\n');
    return false;
  }
  const answer = (await io.ask('Send them? [y/N] ')).trim().toLowerCase();
  if (answer === 'y' || answer === 'yes') return true;
  io.stderr('Not confirmed: nothing was sent.\n');
  return false;
}

/** The primary's own description of each endpoint of the contract. */
async function generatedRequests(
  options: Options,
  data: KnownData,
  authorization: string | undefined,
): Promise<PlannedRequest[]> {
  const endpoints: DescribedEndpoint[] = [];
  for (const endpoint of ENDPOINTS) {
    const answer = await sendRequest(
      options.servers.primary,
      {
        method: 'GET',
        path: `/${endpoint.name}.asmx?wsdl`,
        headers: authorization === undefined ? {} : { authorization },
        body: '',
      },
      { timeoutMs: options.timeoutMs, maxAnswerBytes: MAX_ANSWER_BYTES },
    ).catch((err: Error) => {
      throw new Error(`${options.servers.primary}/${endpoint.name}.asmx?wsdl: ${err.message}`);
    });
    if (answer.status !== 200)
      throw new Error(`${options.servers.primary}/${endpoint.name}.asmx?wsdl answered ${answer.status}.`);
    endpoints.push(readWsdlOperations(endpoint.name, answer.body.toString('utf8')));
  }
  return planRequests(endpoints, data, options.includeWrites);
}

/** The requests of a JSON Lines file; writes left out unless --include-writes. */
function replayedRequests(file: string, includeWrites: boolean, io: CompareIo): PlannedRequest[] {
  const text = readFileSync(file);
  if (text.length > MAX_REQUESTS_FILE) throw new Error(`${file} is larger than ${MAX_REQUESTS_FILE} bytes.`);
  const planned: PlannedRequest[] = [];
  let skipped = 0;
  for (const request of parseRequestLines(text.toString('utf8'), file)) {
    const found = classifyRequest(request);
    // A call whose operation cannot be told may be a write.
    if (found.isCall && (found.operation === null || operationKind(found.operation) === 'write') && !includeWrites) {
      skipped++;
      continue;
    }
    planned.push({
      endpoint: found.endpoint ?? '(none)',
      operation: found.operation,
      binding: found.binding,
      case: found.isCall ? 'replayed' : documentCase(request.path),
      request,
    });
  }
  if (skipped > 0) io.stderr(`${skipped} recorded writes left out (--include-writes sends them).\n`);
  return planned;
}

/** A replayed document's case, named as the generated ones are (wsdl, disco, help-operation, help), for the ignore rules. */
function documentCase(requestPath: string): string {
  const query = new URLSearchParams(requestPath.includes('?') ? requestPath.slice(requestPath.indexOf('?') + 1) : '');
  const keys = [...query.keys()].map((key) => key.toLowerCase());
  if (keys.includes('wsdl')) return 'wsdl';
  if (keys.includes('disco')) return 'disco';
  if (keys.includes('op')) return 'help-operation';
  return keys.length === 0 ? 'help' : 'replayed';
}

/** The ids, devices and schools the data files name. */
async function knownData(files: readonly string[]): Promise<KnownData> {
  if (files.length === 0) return NO_DATA;
  const data = {
    studentIds: new Set<string>(),
    deviceIds: new Set<string>(),
    schools: new Set<string>(),
    auditNotes: new Map<string, { subjectId: string; classId: string }>(),
    notes: new Map<string, { studentId: string; type: string }>(),
    absenceStudents: new Set<string>(),
  };
  const text = (value: unknown) => (typeof value === 'string' || typeof value === 'number' ? String(value) : null);
  for (const file of files) {
    const source = await readSource(file);
    for (const { record } of source.rows.schools ?? []) {
      const baseUrl = text(record.baseUrl);
      if (baseUrl !== null) data.schools.add(baseUrl);
    }
    for (const { record } of source.rows.students ?? []) {
      const id = text(record.id);
      if (id !== null) data.studentIds.add(id);
      const school = text(record.school);
      if (school !== null) data.schools.add(school);
    }
    for (const { record } of source.rows.devices ?? []) {
      const id = text(record.id);
      if (id !== null) data.deviceIds.add(id);
    }
    for (const { record } of source.rows.notes ?? []) {
      const studentId = text(record.studentId);
      const type = text(record.type);
      if (studentId !== null && type !== null) data.notes.set(`${studentId}\u0000${type}`, { studentId, type });
      const subjectId = text(record.subjectId);
      const classId = text(record.classId);
      if (type === 'audit' && subjectId !== null && classId !== null)
        data.auditNotes.set(`${subjectId}\u0000${classId}`, { subjectId, classId });
    }
    for (const { record } of source.rows.absences ?? []) {
      const studentId = text(record.studentId);
      if (studentId !== null) data.absenceStudents.add(studentId);
    }
  }
  return {
    studentIds: [...data.studentIds],
    deviceIds: [...data.deviceIds],
    schools: [...data.schools],
    auditNotes: [...data.auditNotes.values()],
    notes: [...data.notes.values()],
    absenceStudents: [...data.absenceStudents],
  };
}

if (require.main === module) runCommand(() => main(process.argv.slice(2)));
