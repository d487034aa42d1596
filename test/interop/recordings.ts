// Picks, from everything a client sent through its relay, the requests the
// fixtures keep (its first GetStudentSchool and GetTokenDevice per binding),
// and writes them where `npm test` replays them from.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseMessage, statusOf, type HttpMessage } from '../support/http-messages';
import { retarget, stableResponse } from '../support/raw-exchange';
import type { Binding } from './calls';
import type { Exchange } from './relay';

const RECORDED_OPERATIONS = new Set(['GetStudentSchool', 'GetTokenDevice']);
const SOAP12_ENVELOPE = 'http://www.w3.org/2003/05/soap-envelope';

export interface Recording {
  /** `<client>-<binding>-<operation>`, the fixture's file name without extension. */
  readonly name: string;
  /** Exactly the bytes the client sent. */
  readonly request: Buffer;
  /** The answer it got, volatile headers left out. */
  readonly response: Buffer;
}

/** Which binding and operation a request is, judged from the request alone. */
export function classify(request: HttpMessage): { binding: Binding; operation: string } | null {
  const [method, target = ''] = request.head.startLine.split(' ');
  const urlPath = target.split('?')[0];
  const httpOperation = /\.asmx\/([^/]+)$/i.exec(urlPath);
  if (httpOperation !== null) {
    if (method === 'GET') return { binding: 'httpget', operation: httpOperation[1] };
    if (method === 'POST') return { binding: 'httppost', operation: httpOperation[1] };
    return null;
  }
  if (method !== 'POST' || !/\.asmx$/i.test(urlPath)) return null;
  const xml = request.body.toString('utf8');
  const bodyElement = /<(?:[\w.-]+:)?Body\b[^>]*>\s*<(?:[\w.-]+:)?([\w.-]+)/.exec(xml);
  if (bodyElement === null) return null;
  return { binding: xml.includes(SOAP12_ENVELOPE) ? 'soap12' : 'soap11', operation: bodyElement[1] };
}

export function pickRecordings(client: string, exchanges: readonly Exchange[]): Recording[] {
  const picked = new Map<string, Recording>();
  for (const { request, response } of exchanges) {
    const kind = classify(request);
    if (kind === null || response === null || !RECORDED_OPERATIONS.has(kind.operation)) continue;
    const name = `${client}-${kind.binding}-${kind.operation}`;
    if (!picked.has(name)) picked.set(name, { name, request: request.raw, response: stableResponse(response) });
  }
  return [...picked.values()];
}

export interface FixtureComparison {
  readonly unchanged: readonly string[];
  readonly changed: readonly string[];
  readonly added: readonly string[];
}

/** Recordings against the committed fixtures, the Host header (the relay's port) and the client's patch version aside. */
export function compareWithFixtures(recordings: readonly Recording[], fixturesDir: string): FixtureComparison {
  const unchanged: string[] = [];
  const changed: string[] = [];
  const added: string[] = [];
  for (const recording of recordings) {
    const request = readOptional(path.join(fixturesDir, `${recording.name}.http`));
    const response = readOptional(path.join(fixturesDir, `${recording.name}.response.http`));
    if (request === null || response === null) added.push(recording.name);
    else if (sameRequest(request, recording.request) && response.equals(recording.response))
      unchanged.push(recording.name);
    else changed.push(recording.name);
  }
  return { unchanged, changed, added };
}

/**
 * Writes the recordings that differ from the fixtures (a new relay port alone
 * is no difference, so unchanged files keep their bytes); a client's fixtures
 * it no longer produced are removed. Returns how many were written.
 */
export function writeFixtures(
  recordings: readonly Recording[],
  clients: readonly string[],
  fixturesDir: string,
): number {
  mkdirSync(fixturesDir, { recursive: true });
  const kept = new Set(recordings.flatMap((each) => [`${each.name}.http`, `${each.name}.response.http`]));
  for (const file of readdirSync(fixturesDir)) {
    if (clients.some((client) => file.startsWith(`${client}-`)) && !kept.has(file))
      rmSync(path.join(fixturesDir, file));
  }
  const { changed, added } = compareWithFixtures(recordings, fixturesDir);
  const stale = new Set([...changed, ...added]);
  const toWrite = recordings.filter((each) => stale.has(each.name));
  writeRecordings(toWrite, fixturesDir);
  return toWrite.length;
}

export function writeRecordings(recordings: readonly Recording[], dir: string): void {
  mkdirSync(dir, { recursive: true });
  for (const recording of recordings) {
    writeFileSync(path.join(dir, `${recording.name}.http`), recording.request);
    writeFileSync(path.join(dir, `${recording.name}.response.http`), recording.response);
  }
}

/** One line per exchange (`GET /X.asmx?wsdl -> 200`), so that a failing run shows what the client asked for. */
export function exchangeLog(exchanges: readonly Exchange[]): string {
  return exchanges
    .map(({ request, response }) => {
      const [method, target] = request.head.startLine.split(' ');
      return `${method} ${target} -> ${response === null ? 'no answer' : statusOf(response.head)}\n`;
    })
    .join('');
}

function sameRequest(a: Buffer, b: Buffer): boolean {
  return comparable(a).equals(comparable(b));
}

// A distribution's security update moves a client's User-Agent from 8.2.35 to 8.2.36,
// say: not a change of what it sends.
function comparable(request: Buffer): Buffer {
  const text = retarget(parseMessage('request', request), 'host').toString('latin1');
  return Buffer.from(text.replace(/^(User-Agent:[^\r\n]*?\d+\.\d+)\.\d+/im, '$1.x'), 'latin1');
}

function readOptional(file: string): Buffer | null {
  try {
    return readFileSync(file);
  } catch {
    return null;
  }
}
