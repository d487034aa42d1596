// Load of the two operations that queue a delivery, SendNotificationType and
// AuthCode, alternating HTTP POST and SOAP 1.1, from several keep-alive
// clients. Every call is unique (its own TypeNotfication, its own phone
// number) so that each delivery can be matched to the call that asked for
// it. Calls answered 200 are acknowledged: the service promised delivery.
import type { DataSet } from '../../../src/store';
import { RawClient, rawRequest, type Outcome } from './raw-client';

export const SCHOOL = 'https://chaos.school.example';

/** Students with a device and a push token each. */
export function loadDataSet(students: number): DataSet {
  const ids = Array.from({ length: students }, (_, i) => String(5001 + i));
  return {
    schools: [{ baseUrl: SCHOOL, name: 'Chaos School' }],
    devices: ids.map((id) => ({ id: `dev-${id}`, token: `token-${id}`, platform: 'android' as const })),
    students: ids.map((id) => ({
      id,
      school: SCHOOL,
      fullName: `Student ${id}`,
      deviceId: `dev-${id}`,
      active: '1',
      classId: '7A',
    })),
  };
}

export interface WriteLoad {
  /** Acknowledged pushes (by TypeNotfication) and SMS (by E.164 number). */
  readonly ackedPushes: Set<string>;
  readonly ackedSms: Set<string>;
  /** Calls by outcome: `200`, `500`, `closed`, `refused`... */
  readonly outcomes: Map<string, number>;
  /** Resolves when `count` more calls have been acknowledged; rejects after `timeoutMs` (default 120 s). */
  acknowledged(count: number, timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

const NS = 'http://tempuri.org/';

function soap(operation: string, params: Record<string, string>): string {
  const inner = Object.entries(params)
    .map(([k, v]) => `<${k}>${v}</${k}>`)
    .join('');
  return `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><${operation} xmlns="${NS}">${inner}</${operation}></soap:Body></soap:Envelope>`;
}

function callBytes(endpoint: string, operation: string, params: Record<string, string>, asSoap: boolean): Buffer {
  if (asSoap) {
    const body = soap(operation, params);
    return rawRequest(
      'POST',
      `/${endpoint}.asmx`,
      [
        ['Content-Type', 'text/xml; charset=utf-8'],
        ['SOAPAction', `"${NS}${operation}"`],
        ['Content-Length', String(Buffer.byteLength(body))],
      ],
      body,
    );
  }
  const body = new URLSearchParams(params).toString();
  return rawRequest(
    'POST',
    `/${endpoint}.asmx/${operation}`,
    [
      ['Content-Type', 'application/x-www-form-urlencoded'],
      ['Content-Length', String(body.length)],
    ],
    body,
  );
}

/**
 * Starts `clients` loops calling the service at `port()` (read before each
 * call: a restarted service listens elsewhere). `students` as in loadDataSet.
 * `prefix` keeps the calls of one run apart from another's.
 */
export function startWriteLoad(
  port: () => number,
  options: { clients: number; students: number; prefix: string },
): WriteLoad {
  const ackedPushes = new Set<string>();
  const ackedSms = new Set<string>();
  const outcomes = new Map<string, number>();
  let running = true;
  let sequence = 0;
  let acks = 0;
  let waiters: Array<{ at: number; resolve: () => void }> = [];
  const note = (key: string) => outcomes.set(key, (outcomes.get(key) ?? 0) + 1);

  const loop = async (index: number) => {
    let client = new RawClient(port());
    let clientPort = port();
    while (running) {
      if (clientPort !== port()) {
        client.close();
        clientPort = port();
        client = new RawClient(clientPort);
      }
      const n = sequence++;
      const asSoap = n % 4 >= 2;
      let outcome: Outcome;
      let key: string;
      let acked: Set<string>;
      if (n % 2 === 0) {
        key = `${options.prefix}${n}`;
        acked = ackedPushes;
        const student = String(5001 + (n % options.students));
        outcome = await sendSafely(
          client,
          callBytes(
            'NotificationNotes',
            'SendNotificationType',
            { id: student, baseUrlSchool: SCHOOL, TypeNotfication: key },
            asSoap,
          ),
        );
      } else {
        // Syrian mobile numbers, one per call: 094 and seven digits, +96394... once normalised.
        const local = String(n).padStart(7, '0').slice(-7);
        acked = ackedSms;
        outcome = await sendSafely(
          client,
          callBytes('AuthCodeSending', 'AuthCode', { code: '123456', phone: `094${local}` }, asSoap),
        );
        key = `+96394${local}`;
      }
      note(outcome.kind === 'answer' ? String(outcome.status) : outcome.kind);
      if (outcome.kind === 'answer' && outcome.status === 200) {
        acked.add(key);
        acks++;
        waiters = waiters.filter((w) => (acks >= w.at ? (w.resolve(), false) : true));
      } else if (outcome.kind !== 'answer') {
        // Nobody listens (killed, restarting): do not spin.
        await new Promise((resolve) => setTimeout(resolve, 20 + index));
      }
    }
    client.close();
  };
  const loops = Array.from({ length: options.clients }, (_, i) => loop(i));
  return {
    ackedPushes,
    ackedSms,
    outcomes,
    acknowledged: (count, timeoutMs = 120_000) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(
          () =>
            reject(
              new Error(
                `${count} calls not acknowledged within ${timeoutMs} ms; outcomes so far: ${[...outcomes].map(([k, n]) => `${k}: ${n}`).join(', ')}`,
              ),
            ),
          timeoutMs,
        );
        waiters.push({
          at: acks + count,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        });
      }),
    async stop() {
      running = false;
      await Promise.all(loops);
    },
  };
}

async function sendSafely(client: RawClient, bytes: Buffer): Promise<Outcome> {
  try {
    return await client.send(bytes, { timeoutMs: 10_000 });
  } catch {
    return { kind: 'closed', ms: 0 };
  }
}
