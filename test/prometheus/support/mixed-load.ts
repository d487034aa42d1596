// The short mixed load the rules and the dashboard are checked under: calls
// of every binding (SOAP 1.1, SOAP 1.2, HTTP GET, HTTP POST), pushes that a
// fake webhook gateway accepts, fails for a retry and rejects for good, login
// codes up to the service-wide limit, and calls the access policy refuses
// (no credentials; one device too many for an enumeration budget).
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import bcrypt from 'bcryptjs';
import { NS, envelope, type Params } from '../../support/wire';

/** What the fake gateway answers, in turn: accepted, overloaded (retried), rejected (dead). */
const ANSWERS = [200, 503, 200, 400] as const;

export interface FakeWebhook {
  readonly url: string;
  /** How often each status was answered. */
  readonly answered: Map<number, number>;
  close(): Promise<void>;
}

export async function startFakeWebhook(): Promise<FakeWebhook> {
  const answered = new Map<number, number>();
  let next = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const status = ANSWERS[next++ % ANSWERS.length];
      answered.set(status, (answered.get(status) ?? 0) + 1);
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(status === 200 ? '{"success":"ok"}' : '{"error":"test"}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/push`,
    answered,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const USER = 'prometheus-check';
const PASSWORD = 'a password for this run only';
const AUTHORIZATION = `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}`;

/** Every operation behind Basic; GetTokenDevice with an enumeration budget of two devices. */
export function writeAccessPolicy(dir: string): string {
  const file = path.join(dir, 'access-policy.json');
  const policy = {
    users: { [USER]: bcrypt.hashSync(PASSWORD, 4) },
    default: { allow: ['127.0.0.0/8', '::1/128'], auth: 'basic' },
    endpoints: { 'PushNotificationMobile.asmx': { GetTokenDevice: { enumeration: '2/1h' } } },
  };
  writeFileSync(file, JSON.stringify(policy));
  return file;
}

type Binding = 'soap11' | 'soap12' | 'http_get' | 'http_post';
export const BINDINGS: readonly Binding[] = ['soap11', 'soap12', 'http_get', 'http_post'];

/** One call over a binding; resolves with the HTTP status. */
export async function call(
  base: string,
  binding: Binding,
  endpoint: string,
  op: string,
  params: Params,
  credentials = true,
): Promise<number> {
  const headers: Record<string, string> = credentials ? { authorization: AUTHORIZATION } : {};
  let response: Response;
  if (binding === 'soap11') {
    response = await fetch(`${base}/${endpoint}.asmx`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'text/xml; charset=utf-8', soapaction: `"${NS}${op}"` },
      body: envelope('1.1', op, params),
    });
  } else if (binding === 'soap12') {
    response = await fetch(`${base}/${endpoint}.asmx`, {
      method: 'POST',
      headers: { ...headers, 'content-type': `application/soap+xml; charset=utf-8; action="${NS}${op}"` },
      body: envelope('1.2', op, params),
    });
  } else if (binding === 'http_get') {
    response = await fetch(`${base}/${endpoint}.asmx/${op}?${new URLSearchParams(params).toString()}`, { headers });
  } else {
    response = await fetch(`${base}/${endpoint}.asmx/${op}`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(params).toString(),
    });
  }
  await response.arrayBuffer();
  return response.status;
}

export interface LoadSummary {
  readonly calls: number;
  readonly statuses: Readonly<Record<number, number>>;
}

/**
 * The load itself, a few hundred calls: bounded in count, so it ends on its
 * own. `authCodes` login codes, one per phone number (the per-number limit
 * would refuse a second).
 */
export async function driveMixedLoad(base: string, authCodes: number): Promise<LoadSummary> {
  const statuses: Record<number, number> = {};
  let calls = 0;
  const count = async (status: Promise<number>) => {
    const got = await status;
    statuses[got] = (statuses[got] ?? 0) + 1;
    calls += 1;
  };
  for (let round = 0; round < 5; round++) {
    for (const binding of BINDINGS) {
      // Pushes for students with a device token: the worker sends each to the webhook.
      for (const student of ['1001', '1002']) {
        await count(
          call(base, binding, 'NotificationNotes', 'SendNotificationType', {
            id: student,
            baseUrlSchool: 'https://school-a.example',
            TypeNotfication: 'absence',
          }),
        );
      }
      // A caller's mistake: a fault by code.
      await count(
        call(base, binding, 'NotificationNotes', 'SendNotificationType', {
          id: 'nobody',
          baseUrlSchool: 'https://school-a.example',
          TypeNotfication: 'absence',
        }),
      );
      // Reads within the enumeration budget (the same two devices, again and again).
      await count(call(base, binding, 'PushNotificationMobile', 'GetTokenDevice', { id: 'dev-1001' }));
      await count(call(base, binding, 'PushNotificationMobile', 'GetTokenDevice', { id: 'dev-1002' }));
      // Refused: no credentials.
      await count(call(base, binding, 'PushNotificationMobile', 'GetTokenDevice', { id: 'dev-1001' }, false));
    }
  }
  // Refused: a third distinct device.
  await count(call(base, 'soap11', 'PushNotificationMobile', 'GetTokenDevice', { id: 'dev-2001' }));
  for (let i = 0; i < authCodes; i++) {
    const binding = BINDINGS[i % BINDINGS.length];
    await count(
      call(base, binding, 'AuthCodeSending', 'AuthCode', {
        code: '482913',
        phone: `09441234${String(i).padStart(2, '0')}`,
      }),
    );
  }
  return { calls, statuses };
}
