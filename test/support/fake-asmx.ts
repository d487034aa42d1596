// A scripted stand-in for the legacy ASMX service, for the seeding's tests
// and benchmark (docs/migration.md#seed-from-the-legacy-service): it serves
// the two ?wsdl documents (this service's own wsdl/ files, which are the
// legacy's contract) and answers GetStudentSchool and GetTokenDevice over
// SOAP 1.1 in the byte shapes test/wire pins; it records every operation
// asked for, whatever it is. Options make it slow, fail calls with 500,
// require Basic, or serve another WSDL. Plain node:http, so that
// scripts/bench-seed.ts can load it too.
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

export interface FakeStudent {
  readonly id: string | null;
  readonly fullName: string | null;
  readonly deviceId: string | null;
  /** Sent as ShowActive, and what the lists are filtered by. */
  readonly active: string;
}

export interface FakeAsmxData {
  /** School base URL (as the seeding sends it) → its students. */
  readonly schools: ReadonlyMap<string, readonly FakeStudent[]>;
  /** Device id → token; null or missing: the null string. */
  readonly tokens: ReadonlyMap<string, string | null>;
}

export interface FakeAsmxOptions {
  /** Each SOAP call waits this long before answering. */
  latencyMs?: number;
  /** Answers 500 (a SOAP fault) to the first attempt of every Nth SOAP call, counted by call: a retry then succeeds. */
  failEvery?: number;
  /** Answers 500 to every call of these schools. */
  failSchools?: readonly string[];
  basic?: { readonly user: string; readonly password: string };
  /** WSDL text to serve instead of the endpoint's file in wsdl/, by endpoint. */
  wsdl?: Readonly<Record<string, string>>;
  /** An answer of its own for a call (a broken or hostile legacy); undefined: the usual one. */
  override?: (call: FakeCall) => { readonly status: number; readonly body: string } | undefined;
}

export interface FakeCall {
  /** The SOAPAction, unquoted. */
  readonly action: string;
  readonly path: string;
  readonly params: Readonly<Record<string, string>>;
}

export interface FakeAsmx {
  readonly url: string;
  /** Every SOAP request, in arrival order. */
  readonly calls: FakeCall[];
  /** Every ?wsdl request's path. */
  readonly wsdlRequests: string[];
  /** The most SOAP calls that were in flight at once. */
  readonly maxInFlight: () => number;
  /** When each SOAP call arrived (ms, monotonic). */
  readonly arrivals: number[];
  readonly refusedAuth: () => number;
  close(): Promise<void>;
}

const WSDL_DIR = path.resolve(__dirname, '../../wsdl');
const ENVELOPE_OPEN =
  '<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema"><soap:Body>';
const ENVELOPE_CLOSE = '</soap:Body></soap:Envelope>';
const NS = 'http://tempuri.org/';

const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const element = (name: string, value: string | null) => (value === null ? '' : `<${name}>${escape(value)}</${name}>`);

export function studentList(students: readonly FakeStudent[]): string {
  if (students.length === 0)
    return `<GetStudentSchoolResponse xmlns="${NS}"><GetStudentSchoolResult /></GetStudentSchoolResponse>`;
  const items = students
    .map(
      (s) =>
        `<StudentInfo>${element('id_student', s.id)}${element('fullName', s.fullName)}${element('id_device', s.deviceId)}${element('ShowActive', s.active)}</StudentInfo>`,
    )
    .join('');
  return `<GetStudentSchoolResponse xmlns="${NS}"><GetStudentSchoolResult>${items}</GetStudentSchoolResult></GetStudentSchoolResponse>`;
}

export function tokenAnswer(token: string | null): string {
  return token === null
    ? `<GetTokenDeviceResponse xmlns="${NS}" />`
    : `<GetTokenDeviceResponse xmlns="${NS}"><GetTokenDeviceResult>${escape(token)}</GetTokenDeviceResult></GetTokenDeviceResponse>`;
}

export const soapEnvelope = (body: string) => `${ENVELOPE_OPEN}${body}${ENVELOPE_CLOSE}`;

const fault = (text: string) =>
  `${ENVELOPE_OPEN}<soap:Fault><faultcode>soap:Server</faultcode><faultstring>${escape(text)}</faultstring><detail /></soap:Fault>${ENVELOPE_CLOSE}`;

/** The parameters of the operation element, read the simple way a test fake may. */
function paramsOf(body: string): Record<string, string> {
  const params: Record<string, string> = {};
  for (const match of body.matchAll(/<(school_base_url|show_active|id|code|phone|STDid)>([^<]*)<\/\1>/g)) {
    params[match[1]] = match[2].replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
  }
  return params;
}

export async function startFakeAsmx(data: FakeAsmxData, options: FakeAsmxOptions = {}): Promise<FakeAsmx> {
  const calls: FakeCall[] = [];
  const wsdlRequests: string[] = [];
  const arrivals: number[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  let refusedAuth = 0;
  let url = '';

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      void answer(req, res, Buffer.concat(chunks).toString('utf8'));
    });
  });

  const send = (res: http.ServerResponse, status: number, body: string, type = 'text/xml; charset=utf-8') => {
    res.writeHead(status, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(body) });
    res.end(body);
  };

  const answer = async (req: http.IncomingMessage, res: http.ServerResponse, body: string): Promise<void> => {
    if (options.basic !== undefined) {
      const expected = `Basic ${Buffer.from(`${options.basic.user}:${options.basic.password}`).toString('base64')}`;
      if (req.headers.authorization !== expected) {
        refusedAuth++;
        res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="legacy"', 'Content-Length': 0 });
        res.end();
        return;
      }
    }
    const [pathname = '', query = ''] = (req.url ?? '').split('?');
    const endpoint = /^\/(\w+)\.asmx$/.exec(pathname)?.[1];
    if (endpoint === undefined) {
      send(res, 404, 'not found', 'text/plain');
      return;
    }
    if (req.method === 'GET' && query.toLowerCase() === 'wsdl') {
      wsdlRequests.push(pathname);
      let wsdl: string;
      try {
        wsdl = options.wsdl?.[endpoint] ?? readFileSync(path.join(WSDL_DIR, `${endpoint}.wsdl`), 'utf8');
      } catch {
        send(res, 404, 'not found', 'text/plain');
        return;
      }
      send(res, 200, wsdl.replaceAll('http://localhost/', `${url}/`));
      return;
    }
    const action = (req.headers.soapaction ?? '').toString().replace(/^"|"$/g, '');
    const params = paramsOf(body);
    calls.push({ action, path: pathname, params });
    const index = calls.length;
    arrivals.push(performance.now());
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    try {
      if (options.latencyMs !== undefined && options.latencyMs > 0)
        await new Promise((resolve) => setTimeout(resolve, options.latencyMs));
      const failing =
        (options.failEvery !== undefined && index % options.failEvery === 0) ||
        (params.school_base_url !== undefined && options.failSchools?.includes(params.school_base_url) === true);
      const special = options.override?.(calls[index - 1]);
      if (special !== undefined) {
        send(res, special.status, special.body);
        return;
      }
      if (failing) {
        send(res, 500, fault('Server was unable to process request. ---> boom'));
        return;
      }
      if (action === `${NS}GetStudentSchool` && endpoint === 'NotificationNotes') {
        const flag = String.fromCharCode(Number(params.show_active ?? '0'));
        const students = (data.schools.get(params.school_base_url ?? '') ?? []).filter((s) => s.active === flag);
        send(res, 200, `${ENVELOPE_OPEN}${studentList(students)}${ENVELOPE_CLOSE}`);
        return;
      }
      if (action === `${NS}GetTokenDevice` && endpoint === 'PushNotificationMobile') {
        send(res, 200, `${ENVELOPE_OPEN}${tokenAnswer(data.tokens.get(params.id ?? '') ?? null)}${ENVELOPE_CLOSE}`);
        return;
      }
      // Whatever else was asked is recorded above; the answer is ASMX's for an unknown action.
      send(res, 500, fault(`Server did not recognize the value of HTTP Header SOAPAction: ${action}.`));
    } finally {
      inFlight--;
    }
  };

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    calls,
    wsdlRequests,
    arrivals,
    maxInFlight: () => maxInFlight,
    refusedAuth: () => refusedAuth,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A legacy's worth of data: `schools` schools of `perSchool` students, every 7th inactive, every 5th without a device, every 3rd device without a token. */
export function fakeData(schools: number, perSchool: number): FakeAsmxData {
  const map = new Map<string, FakeStudent[]>();
  const tokens = new Map<string, string | null>();
  for (let s = 0; s < schools; s++) {
    const list: FakeStudent[] = [];
    for (let i = 0; i < perSchool; i++) {
      const n = s * perSchool + i;
      const id = String(100_000 + n);
      const deviceId = n % 5 === 4 ? null : `dev-${id}`;
      if (deviceId !== null) tokens.set(deviceId, n % 3 === 2 ? null : `fcm:${id}&<${n}>`);
      list.push({
        id,
        fullName: n % 2 === 0 ? `طالب ${n}` : `Student ${n} O'Brien & "Q"`,
        deviceId,
        active: n % 7 === 6 ? '0' : '1',
      });
    }
    map.set(`https://school-${s}.legacy.example`, list);
  }
  return { schools: map, tokens };
}
