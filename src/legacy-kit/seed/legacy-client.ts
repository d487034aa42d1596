// The legacy service as the seeding calls it: over SOAP 1.1, built from the
// legacy's own WSDL (its target namespace, its SOAP actions, its parameter
// types), and only ever for the two operations that read. Why envelopes are
// built here rather than by node-soap's client: docs/migration.md#seed-from-the-legacy-service.
import {
  ENDPOINTS,
  operationsWhere,
  parseWsdl,
  wsdlParameterType,
  type EndpointName,
  type ParsedOperation,
  type SeedingOperation,
  type StudentInfo,
} from '../../contract';
import { escapeAttribute, escapeText } from '../../shared/markup';
import type { CallGate } from './call-gate';
import { LegacyAnswerError, readStudentList, readToken } from './read-answer';

/**
 * The only operations the seeding may call, with the endpoint of each: those
 * whose traits say `seeding` (src/contract/operation-traits.ts), which only a
 * read may say. Every other operation of the legacy writes or sends, or is
 * not needed. test/legacy-kit/seed.test.ts checks that a fake legacy sees
 * nothing else.
 */
export const READ_OPERATIONS: Readonly<Record<SeedingOperation, EndpointName>> = Object.fromEntries(
  operationsWhere((traits) => traits.seeding).map((operation) => {
    const endpoint = ENDPOINTS.find((spec) => spec.operations.some((op) => op.wireName === operation));
    if (endpoint === undefined) throw new Error(`${operation} is in no endpoint of the contract`);
    return [operation, endpoint.name];
  }),
) as Record<SeedingOperation, EndpointName>;

export type ReadOperation = SeedingOperation;

const SOAP11_ENV = 'http://schemas.xmlsoap.org/soap/envelope/';
const MAX_WSDL_BYTES = 1024 * 1024;
// A token is at most 4,096 characters (the store's limit); the envelope around it is small.
const MAX_TOKEN_ANSWER_BYTES = 64 * 1024;

export interface LegacyClientOptions {
  /** The legacy's base URL: its endpoints are URL/X.asmx. */
  readonly baseUrl: string;
  readonly gate: CallGate;
  /** One attempt's limit, the answer's body included. */
  readonly timeoutMs: number;
  /** Attempts after the first, on a 5xx, 408, 429, a timeout or a dropped connection. */
  readonly retries: number;
  /** The first retry's wait; each next one doubles, up to 30 times it. */
  readonly backoffMs: number;
  readonly credentials?: { readonly user: string; readonly password: string };
  readonly maxStudents: number;
  /** The largest GetStudentSchool answer read, bytes. */
  readonly maxListBytes: number;
  readonly fetch?: typeof fetch;
}

/** The legacy cannot be read: its WSDL lacks an operation, it refuses the credentials, a call failed after its retries. */
export class LegacyServiceError extends Error {
  override readonly name = 'LegacyServiceError';
}

export interface LegacyClient {
  listStudents(schoolBaseUrl: string, showActive: '1' | '0'): Promise<StudentInfo[]>;
  readToken(deviceId: string): Promise<string | null>;
}

interface BoundOperation {
  readonly name: ReadOperation;
  readonly address: string;
  readonly soapAction: string;
  readonly namespace: string;
  readonly parameters: ReadonlyMap<string, string>;
}

/** The operation's parameters as this service's contract has them: the legacy's WSDL must have each. */
function contractParameters(operation: ReadOperation): string[] {
  const endpoint = ENDPOINTS.find((spec) => spec.name === READ_OPERATIONS[operation]);
  const spec = endpoint?.operations.find((op) => op.wireName === operation);
  if (spec === undefined) throw new Error(`unreachable: ${operation} is not in the contract`);
  return spec.parameters.map((parameter) => parameter.wireName);
}

/** Fetches and reads the two WSDLs; fails clearly when either lacks its operation or a parameter. */
export async function connectLegacy(options: LegacyClientOptions): Promise<LegacyClient> {
  const base = options.baseUrl.replace(/\/+$/, '');
  const fetcher = options.fetch ?? fetch;
  const headers: Record<string, string> = {};
  if (options.credentials !== undefined) {
    const { user, password } = options.credentials;
    headers.Authorization = `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}`;
  }

  const get = async (url: string, init: RequestInit, maxBytes: number, what: string): Promise<string> => {
    let lastProblem = '';
    for (let attempt = 0; attempt <= options.retries; attempt++) {
      if (attempt > 0) await sleep(backoff(options.backoffMs, attempt));
      const outcome = await options.gate.run(() => attemptCall(fetcher, url, init, maxBytes, options.timeoutMs));
      if (outcome.kind === 'ok') return outcome.body;
      lastProblem = outcome.problem;
      if (!outcome.retry) break;
    }
    throw new LegacyServiceError(`${what}: ${lastProblem}`);
  };

  const bind = async (operation: ReadOperation): Promise<BoundOperation> => {
    const parameters = contractParameters(operation);
    const endpoint = READ_OPERATIONS[operation];
    const address = `${base}/${endpoint}.asmx`;
    const wsdl = await get(`${address}?wsdl`, { method: 'GET', headers }, MAX_WSDL_BYTES, `${address}?wsdl`);
    if (/<!DOCTYPE/i.test(wsdl)) throw new LegacyServiceError(`${address}?wsdl has a DTD, which is refused.`);
    // node-soap would follow an import's location; the ASMX WSDLs import nothing from elsewhere.
    if (/<(?:[\w-]+:)?(?:import|include)\b[^>]*\b(?:schemaL|l)ocation\s*=/i.test(wsdl))
      throw new LegacyServiceError(`${address}?wsdl imports another document, which is refused.`);
    let parsed: ParsedOperation | undefined;
    try {
      parsed = (await parseWsdl(wsdl, endpoint)).operations.get(operation);
    } catch (error) {
      throw new LegacyServiceError(
        `${address}?wsdl cannot be read as a WSDL: ${(error as Error).message.slice(0, 200)}`,
      );
    }
    if (parsed === undefined)
      throw new LegacyServiceError(`${address}?wsdl has no operation ${operation}: is this the legacy service?`);
    const soapAction = [...parsed.soapActions].find((action) => typeof action === 'string' && action !== '');
    if (soapAction === undefined) throw new LegacyServiceError(`${address}?wsdl gives ${operation} no SOAP action.`);
    const types = new Map(parsed.parameters.map((p) => [p.name, wsdlParameterType(p.type)]));
    const missing = parameters.filter((name) => !types.has(name));
    if (missing.length > 0)
      throw new LegacyServiceError(`${address}?wsdl: ${operation} takes no parameter ${missing.join(', ')}.`);
    return { name: operation, address, soapAction, namespace: parsed.targetNamespace, parameters: types };
  };

  const call = (operation: BoundOperation, values: Record<string, string>, maxBytes: number, what: string) => {
    // The allow-list, checked at the moment of the call as well as by the types.
    if (!Object.hasOwn(READ_OPERATIONS, operation.name))
      throw new LegacyServiceError(`${operation.name} is not a read operation; the seeding never calls it.`);
    const body = envelope(operation, values);
    return get(
      operation.address,
      {
        method: 'POST',
        headers: { ...headers, 'Content-Type': 'text/xml; charset=utf-8', SOAPAction: `"${operation.soapAction}"` },
        body,
      },
      maxBytes,
      what,
    );
  };

  const [students, token] = [await bind('GetStudentSchool'), await bind('GetTokenDevice')];

  return {
    async listStudents(school, showActive) {
      // A .NET char travels in SOAP as its UTF-16 code (docs/design.md, rule on show_active).
      const flag = students.parameters.get('show_active') === 'char' ? String(showActive.charCodeAt(0)) : showActive;
      const what = `GetStudentSchool(${school}, ${showActive})`;
      const xml = await call(students, { school_base_url: school, show_active: flag }, options.maxListBytes, what);
      try {
        return readStudentList(xml, {
          namespace: students.namespace,
          operation: 'GetStudentSchool',
          maxStudents: options.maxStudents,
        });
      } catch (error) {
        if (error instanceof LegacyAnswerError) throw new LegacyServiceError(`${what}: ${error.message}`);
        throw error;
      }
    },
    async readToken(deviceId) {
      const what = `GetTokenDevice(${maskId(deviceId)})`;
      const xml = await call(token, { id: deviceId }, MAX_TOKEN_ANSWER_BYTES, what);
      try {
        return readToken(xml, { namespace: token.namespace, operation: 'GetTokenDevice' });
      } catch (error) {
        if (error instanceof LegacyAnswerError) throw new LegacyServiceError(`${what}: ${error.message}`);
        throw error;
      }
    },
  };
}

/** A device id in messages: enough to find it, not the whole of it. */
export function maskId(id: string): string {
  return id.length <= 4
    ? '*'.repeat(id.length)
    : `${id.slice(0, 2)}${'*'.repeat(Math.min(id.length - 4, 8))}${id.slice(-2)}`;
}

function envelope(operation: BoundOperation, values: Record<string, string>): string {
  const parameters = [...operation.parameters.keys()]
    .filter((name) => Object.hasOwn(values, name))
    .map((name) => `<${name}>${escapeText(values[name] ?? '')}</${name}>`)
    .join('');
  return `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="${SOAP11_ENV}" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema"><soap:Body><${operation.name} xmlns="${escapeAttribute(operation.namespace)}">${parameters}</${operation.name}></soap:Body></soap:Envelope>`;
}

type Outcome = { kind: 'ok'; body: string } | { kind: 'failed'; problem: string; retry: boolean };

async function attemptCall(
  fetcher: typeof fetch,
  url: string,
  init: RequestInit,
  maxBytes: number,
  timeoutMs: number,
): Promise<Outcome> {
  const timeout = AbortSignal.timeout(timeoutMs);
  const overLimit = new AbortController();
  let response: Response;
  try {
    response = await fetcher(url, {
      ...init,
      signal: AbortSignal.any([timeout, overLimit.signal]),
      redirect: 'manual',
    });
  } catch (error) {
    if (timeout.aborted) return { kind: 'failed', problem: `no answer within ${timeoutMs} ms`, retry: true };
    return { kind: 'failed', problem: `cannot connect (${describeFetchError(error)})`, retry: true };
  }
  const status = response.status;
  if (status === 401 || status === 403) {
    await response.body?.cancel();
    return {
      kind: 'failed',
      problem: `HTTP ${status}: the legacy service refused the credentials (--user, ASMX_PASSWORD)`,
      retry: false,
    };
  }
  const retry = status >= 500 || status === 408 || status === 429;
  let body: string;
  try {
    const declared = Number(response.headers.get('content-length') ?? NaN);
    if (declared > maxBytes) {
      overLimit.abort();
      return { kind: 'failed', problem: `the answer is larger than ${maxBytes} bytes`, retry: false };
    }
    body = await readCapped(response, maxBytes, overLimit);
  } catch (error) {
    if (error instanceof LegacyAnswerError) return { kind: 'failed', problem: error.message, retry: false };
    if (timeout.aborted) return { kind: 'failed', problem: `no answer within ${timeoutMs} ms`, retry: true };
    return { kind: 'failed', problem: `the answer broke off (${describeFetchError(error)})`, retry: true };
  }
  if (status === 200) return { kind: 'ok', body };
  // An ASMX fault is a 500 with a SOAP envelope; its text may echo what was asked, so only the status is told.
  return { kind: 'failed', problem: `HTTP ${status}`, retry };
}

async function readCapped(response: Response, maxBytes: number, overLimit: AbortController): Promise<string> {
  if (response.body === null) return '';
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
    total += chunk.byteLength;
    if (total > maxBytes) {
      overLimit.abort();
      throw new LegacyAnswerError(`the answer is larger than ${maxBytes} bytes`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function describeFetchError(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown } }).cause;
  if (cause !== undefined && typeof cause.code === 'string') return cause.code;
  return error instanceof Error ? error.name : 'unknown error';
}

function backoff(base: number, attempt: number): number {
  const wait = Math.min(base * 2 ** (attempt - 1), base * 30);
  return wait / 2 + Math.random() * (wait / 2);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
