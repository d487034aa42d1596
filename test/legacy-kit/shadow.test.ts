// SHADOW_URL (docs/migration.md#shadow): read calls answered here are sent
// afterwards to the legacy service (another instance of this service here)
// and compared; the answers never change, whatever the legacy does, and only
// the counts in /metrics tell.
import { readdirSync, statSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import pino from 'pino';
import { sendRequest, type Answer, type RecordedRequest } from '../../src/legacy-kit/compare';
import { createShadow, perSecondBudget, type ShadowOptions } from '../../src/legacy-kit/shadow';
import { CACHE_RESULT, send, startCall } from '../../src/wire';
import type { DataSet } from '../../src/store';
import { OPEN_PERSONAL_READS, PASSWORDS, basic, policyFile, usersYaml } from '../access/support';
import { FIXTURES } from '../support/fixtures';
import { startOperatedService, type OperatedService } from '../support/operated-service';
import { parseMetrics, sampleValue } from '../support/prometheus';
import { listenOnLoopback, type LoopbackListener } from '../support/service';
import { storeVariants } from '../support/stores';
import { startInstance, startProxy, tempDir, type Instance, type Proxy } from './support';

const sqlite = storeVariants()[0];

const READS: Record<string, RecordedRequest> = {
  http_get: { method: 'GET', path: '/PushNotificationMobile.asmx/GetTokenDevice?id=dev-1001', headers: {}, body: '' },
  http_post: {
    method: 'POST',
    path: '/NotificationNotes.asmx/GetStudentSchool',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'school_base_url=https%3A%2F%2Fschool-a.example&show_active=1',
  },
  soap11: {
    method: 'POST',
    path: '/NotificationNotes.asmx',
    headers: { 'content-type': 'text/xml; charset=utf-8', soapaction: '"http://tempuri.org/GetStudentSchool"' },
    body:
      '<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><GetStudentSchool xmlns="http://tempuri.org/">' +
      '<school_base_url>https://school-a.example</school_base_url><show_active>49</show_active></GetStudentSchool></soap:Body></soap:Envelope>',
  },
  soap12: {
    method: 'POST',
    path: '/GetStudentsAudit.asmx',
    headers: {
      'content-type': 'application/soap+xml; charset=utf-8; action="http://tempuri.org/GetStudentsAudtiNote"',
    },
    body:
      '<soap:Envelope xmlns:soap="http://www.w3.org/2003/05/soap-envelope"><soap:Body><GetStudentsAudtiNote xmlns="http://tempuri.org/">' +
      '<SubjectID>MATH</SubjectID><Class_id>7A</Class_id></GetStudentsAudtiNote></soap:Body></soap:Envelope>',
  },
};
const WRITES: RecordedRequest[] = [
  { method: 'GET', path: '/ReadNoteFromApp.asmx/UpdateNoteState?STDid=1001&note_type=audit', headers: {}, body: '' },
  { method: 'GET', path: '/GetStudentsAbsence.asmx/GetStudentsAbcenceByID?STDid=1001', headers: {}, body: '' },
  { method: 'GET', path: '/AuthCodeSending.asmx/AuthCode?code=1234&phone=%2B963912345678', headers: {}, body: '' },
];
const OPERATION: Record<string, string> = {
  http_get: 'GetTokenDevice',
  http_post: 'GetStudentSchool',
  soap11: 'GetStudentSchool',
  soap12: 'GetStudentsAudtiNote',
};

function call(base: string, request: RecordedRequest): Promise<Answer> {
  return sendRequest(base, request, { timeoutMs: 5000, maxAnswerBytes: 1 << 24 });
}

/** The shadow counter of one operation, binding and outcome. */
async function count(base: string, operation: string, binding: string, outcome: string): Promise<number> {
  const metrics = await call(base, { method: 'GET', path: '/metrics', headers: {}, body: '' });
  return sampleValue(parseMetrics(metrics.body.toString('utf8')), 'notify_shadow_comparisons_total', {
    operation,
    binding,
    outcome,
  });
}

/** Waits (a bounded number of rounds, not a time) until `check` holds; the shadow calls run after the answers. */
async function eventually(check: () => Promise<boolean>): Promise<void> {
  for (let round = 0; round < 1500; round++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('condition never held');
}

const renamed: DataSet = {
  ...FIXTURES,
  students: (FIXTURES.students ?? []).map((s) => (s.id === '1003' ? { ...s, fullName: `O'Brien & Sons` } : s)),
};

describe('shadow calls', () => {
  let legacy: Instance;
  let proxy: Proxy;
  let service: OperatedService | null = null;
  let listener: LoopbackListener | null = null;
  let reference: Instance;

  beforeAll(async () => {
    legacy = await startInstance();
    // What this service answers without shadowing: the same data, no SHADOW_URL.
    reference = await startInstance();
  });
  beforeEach(async () => {
    proxy = await startProxy(legacy.base);
  });
  afterEach(async () => {
    await listener?.close();
    await service?.stop();
    await proxy.close();
    listener = null;
    service = null;
  });
  afterAll(async () => {
    await legacy.close();
    await reference.close();
  });

  async function start(env: Record<string, string>): Promise<string> {
    // Long enough for a loaded machine; the hanging legacy's tests set a short one.
    service = await startOperatedService(sqlite, { SHADOW_TIMEOUT_MS: '10000', ...env });
    listener = await listenOnLoopback(service.app);
    return listener.base;
  }

  it('sends each read call to the legacy after answering, compares, and counts it by operation and binding', async () => {
    const base = await start({ SHADOW_URL: proxy.base });
    for (const [binding, request] of Object.entries(READS)) {
      await call(base, request);
      await eventually(async () => (await count(base, OPERATION[binding], binding, 'same_bytes')) === 1);
    }
    expect(proxy.seen.map((r) => r.path)).toEqual(Object.values(READS).map((r) => r.path));
    expect(proxy.seen[2].body).toBe(READS.soap11.body);
  });

  it('never sends a write', async () => {
    const base = await start({ SHADOW_URL: proxy.base });
    for (const write of WRITES) await call(base, write);
    await call(base, READS.http_get);
    await eventually(async () => (await count(base, 'GetTokenDevice', 'http_get', 'same_bytes')) === 1);
    expect(proxy.seen.map((r) => r.path)).toEqual([READS.http_get.path]);
  });

  /** Headers of a caller that must never reach the legacy: its session, its proxy's credentials, where it says it is. */
  const CALLER_HEADERS = {
    cookie: 'ASP.NET_SessionId=abc',
    'proxy-authorization': 'Basic cHJveHk6c2VjcmV0',
    'x-forwarded-for': '198.51.100.23',
    'x-forwarded-host': 'intranet.school-a.example',
    forwarded: 'for=198.51.100.23',
    connection: 'keep-alive, x-hop',
    'x-hop': 'one-hop-only',
  };
  const withHeaders = (request: RecordedRequest, headers: Record<string, string>): RecordedRequest => ({
    ...request,
    headers: { ...request.headers, ...headers },
  });
  /** Every shadow outcome counted for one operation and binding. */
  async function counted(base: string, operation: string, binding: string): Promise<number> {
    let total = 0;
    for (const outcome of ['same_bytes', 'equivalent', 'explained', 'differs', 'error', 'dropped'])
      total += await count(base, operation, binding, outcome);
    return total;
  }

  // Thirty wrong Basic passwords that the failed-login throttle stopped once
  // reached the legacy, with the caller's credentials, where they count
  // against the school's real account.
  it("sends only the calls we answered: never one refused, throttled or faulted, nor the caller's credentials or forwarding headers", async () => {
    const policy = policyFile(
      `${usersYaml()}endpoints:\n  PushNotificationMobile.asmx:\n    GetTokenDevice: { auth: basic }\n` +
        OPEN_PERSONAL_READS(['NotificationNotes', 'GetStudentsAbsence', 'GetStudentsAudit', 'ReadNoteFromApp']),
    );
    try {
      // The throttle counts per address too: the answered calls come from another one.
      const base = await start({ SHADOW_URL: proxy.base, ACCESS_POLICY: policy.file, TRUST_PROXY: 'loopback' });
      const refusals = new Set<string>();
      for (let i = 0; i < 30; i++) {
        const wrong = withHeaders(READS.http_get, {
          ...CALLER_HEADERS,
          authorization: basic('sis-alnoor', `guess ${i}`),
        });
        const answer = await call(base, wrong);
        refusals.add(
          `${answer.status} ${/too many failed logins/.test(answer.body.toString('utf8')) ? 'throttled' : 'wrong'}`,
        );
      }
      expect([...refusals].sort()).toEqual(['401 throttled', '401 wrong']);
      const right = basic('app-gateway', PASSWORDS['app-gateway']);
      const other = { ...CALLER_HEADERS, 'x-forwarded-for': '198.51.100.24', authorization: right };
      const faulted = await call(base, {
        ...withHeaders(READS.http_get, other),
        path: '/PushNotificationMobile.asmx/GetTokenDevice',
      });
      expect(faulted.status).toBe(500);
      const answered = await call(base, withHeaders(READS.http_get, other));
      expect(answered.status).toBe(200);
      await eventually(async () => (await count(base, 'GetTokenDevice', 'http_get', 'same_bytes')) === 1);
      expect(await counted(base, 'GetTokenDevice', 'http_get')).toBe(1);
      expect(proxy.seen).toHaveLength(1);
      expect(proxy.seen[0].path).toBe(READS.http_get.path);
      const sent = Object.keys(proxy.seen[0].headers);
      for (const name of [
        'authorization',
        'cookie',
        'proxy-authorization',
        'x-forwarded-for',
        'x-forwarded-host',
        'forwarded',
        'x-hop',
      ])
        expect(sent).not.toContain(name);
      expect(JSON.stringify(proxy.seen[0])).not.toMatch(/198\.51\.100\.2[34]|SessionId|cHJveHk|one-hop-only/);
    } finally {
      policy.cleanup();
    }
  });

  it("sends the caller's Authorization on only with SHADOW_FORWARD_AUTHORIZATION, or its own SHADOW_USER credentials", async () => {
    const callers = withHeaders(READS.http_get, { ...CALLER_HEADERS, authorization: basic('caller', 'their secret') });
    const sentAuthorization = async (env: Record<string, string>) => {
      await listener?.close();
      await service?.stop();
      proxy.seen.length = 0;
      const base = await start({ SHADOW_URL: proxy.base, ...env });
      await call(base, callers);
      await eventually(async () => proxy.seen.length === 1);
      expect(proxy.seen[0].headers).not.toHaveProperty('cookie');
      expect(proxy.seen[0].headers).not.toHaveProperty('x-forwarded-for');
      return proxy.seen[0].headers.authorization;
    };
    const file = path.join(tempDir(), 'legacy-password');
    writeFileSync(file, 'legacy: pässword\n', { mode: 0o600 });
    expect(await sentAuthorization({})).toBeUndefined();
    expect(await sentAuthorization({ SHADOW_FORWARD_AUTHORIZATION: 'true' })).toBe(basic('caller', 'their secret'));
    expect(await sentAuthorization({ SHADOW_USER: 'shadow', SHADOW_PASSWORD_FILE: file })).toBe(
      basic('shadow', 'legacy: pässword'),
    );
    expect(await sentAuthorization({ SHADOW_USER: 'shadow', SHADOW_PASSWORD: 's3cret' })).toBe(
      basic('shadow', 's3cret'),
    );
  });

  it('counts a difference, logs it once a minute per operation and binding without personal data, and keeps the pair', async () => {
    const other = await startInstance(renamed);
    const keep = path.join(tempDir(), 'keep');
    try {
      const base = await start({ SHADOW_URL: other.base, SHADOW_KEEP_DIR: keep, SHADOW_KEEP_MAX_FILES: '2' });
      const withSecret = {
        ...READS.soap11,
        headers: { ...READS.soap11.headers, authorization: 'Basic c2VjcmV0OnNlY3JldA==' },
      };
      for (let i = 1; i <= 3; i++) {
        await call(base, withSecret);
        await eventually(async () => (await count(base, 'GetStudentSchool', 'soap11', 'differs')) === i);
      }
      await eventually(async () => readdirSync(keep).length === 2);
      const lines = service!.logs.filter((l) => l.msg === 'shadow: the legacy service answers differently');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatchObject({
        operation: 'GetStudentSchool',
        binding: 'soap11',
        kind: 'other_data',
        difference: '/Envelope/Body/GetStudentSchoolResponse/GetStudentSchoolResult/StudentInfo[3]/fullName/text()',
      });
      expect(JSON.stringify(lines[0])).not.toMatch(/Brien|school-a/);
      for (const file of readdirSync(keep)) {
        expect(statSync(path.join(keep, file)).mode & 0o777).toBe(0o600);
        const pair = readFileSync(path.join(keep, file), 'utf8');
        expect(pair).toContain('O&apos;Brien &amp; Sons'.replace('&apos;', "'"));
        expect(pair).not.toMatch(/authorization|c2VjcmV0/i);
      }
    } finally {
      await other.close();
    }
  });

  it('counts a difference SHADOW_IGNORE accepts as explained', async () => {
    const other = await startInstance(renamed);
    const rules = path.join(tempDir(), 'ignore.yaml');
    writeFileSync(rules, 'rules:\n  - id: names\n    path: "**/fullName/text()"\n    reason: names corrected here\n');
    try {
      const base = await start({ SHADOW_URL: other.base, SHADOW_IGNORE: rules });
      await call(base, READS.soap11);
      await eventually(async () => (await count(base, 'GetStudentSchool', 'soap11', 'explained')) === 1);
      expect(await count(base, 'GetStudentSchool', 'soap11', 'differs')).toBe(0);
    } finally {
      await other.close();
    }
  });

  describe.each([
    ['hanging', 'accepts the connection and never answers'],
    ['refusing', 'refuses the connection'],
  ])('a %s legacy (%s)', (kind) => {
    let address: string;
    let hanging: net.Server | null = null;
    const sockets = new Set<net.Socket>();
    beforeEach(async () => {
      const server = net.createServer((socket) => {
        sockets.add(socket);
        socket.on('error', () => undefined);
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      address = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
      if (kind === 'hanging') hanging = server;
      else await new Promise((resolve) => server.close(resolve));
    });
    afterEach(async () => {
      for (const socket of sockets) socket.destroy();
      if (hanging !== null) await new Promise((resolve) => hanging!.close(resolve));
      hanging = null;
    });

    it('changes no answer, and only counts errors and drops', async () => {
      const base = await start({ SHADOW_URL: address, SHADOW_CONCURRENCY: '1', SHADOW_TIMEOUT_MS: '300' });
      for (const [binding, request] of Object.entries(READS)) {
        const [ours, plain] = await Promise.all([call(base, request), call(reference.base, request)]);
        expect({ binding, status: ours.status, body: ours.body.toString('utf8') }).toEqual({
          binding,
          status: plain.status,
          body: plain.body.toString('utf8'),
        });
        expect(ours.headers['content-type']).toBe(plain.headers['content-type']);
      }
      // One in flight at a time: calls made while it hangs are dropped.
      await eventually(async () => {
        let total = 0;
        for (const [binding, operation] of Object.entries(OPERATION))
          total +=
            (await count(base, operation, binding, 'error')) + (await count(base, operation, binding, 'dropped'));
        return total === Object.keys(READS).length;
      });
      expect(await count(base, 'GetTokenDevice', 'http_get', 'error')).toBe(1);
    });
  });
});

/**
 * A server answering `answer` to every call through a shadow of `legacyUrl`
 * (every call sampled, 4 slots), with the shadow's counts and the clock it is given.
 */
async function shadowedServer(
  legacyUrl: string,
  options: { maxPerSecond?: number; logger?: ShadowOptions['logger'] } = {},
) {
  const counts: Record<string, number> = {};
  const clock = { now: 1_000_000 };
  const shadow = createShadow({
    url: legacyUrl,
    sample: 1,
    concurrency: 4,
    maxPerSecond: options.maxPerSecond ?? 100,
    timeoutMs: 5000,
    rules: [],
    keep: null,
    maxAnswerBytes: 1 << 20,
    logger: options.logger ?? pino({ level: 'silent' }),
    metrics: { compared: (_operation, _binding, outcome) => void (counts[outcome] = (counts[outcome] ?? 0) + 1) },
    now: () => clock.now,
  });
  const server = http.createServer((req, res) => {
    const record = startCall(req);
    shadow.observe(req, res, record, () => {
      Object.assign(record, { operation: 'GetTokenDevice', binding: 'http_get', outcome: 'ok' });
      send(res, 200, 'text/plain', 'answer', CACHE_RESULT, record.answerTap);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    counts,
    clock,
    async close() {
      await shadow.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** A legacy that answers every call 503 `busy`, and how many it was sent. */
async function busyLegacy() {
  const seen = { calls: 0 };
  const server = http.createServer((req, res) => {
    seen.calls++;
    req.resume();
    res.statusCode = 503;
    res.end('busy');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    seen,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

describe('a legacy that answers differently', () => {
  it('is logged once a minute per operation and binding, by the clock the shadow is given', async () => {
    const legacy = await busyLegacy();
    const lines: { msg: string; difference?: string }[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    const { base, counts, clock, close } = await shadowedServer(legacy.url, { logger });
    const differing = () => lines.filter((l) => l.msg === 'shadow: the legacy service answers differently');
    try {
      for (let i = 1; i <= 3; i++) {
        await call(base, READS.http_get);
        await eventually(async () => counts.differs === i);
      }
      expect(differing()).toEqual([expect.objectContaining({ difference: 'status' })]);
      clock.now += 60_000;
      await call(base, READS.http_get);
      await eventually(async () => counts.differs === 4);
      expect(differing()).toHaveLength(2);
      expect(counts).toEqual({ differs: 4 });
    } finally {
      await close();
      await legacy.close();
    }
  });
});

describe('a legacy that keeps failing', () => {
  it('is left alone for a while after five failures in a row: the calls meanwhile count as dropped', async () => {
    const closed = net.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as net.AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const { base, counts, clock, close } = await shadowedServer(`http://127.0.0.1:${port}`);
    const total = () => (counts.error ?? 0) + (counts.dropped ?? 0);
    try {
      for (let i = 1; i <= 8; i++) {
        await call(base, READS.http_get);
        await eventually(async () => total() === i);
      }
      expect(counts).toEqual({ error: 5, dropped: 3 });
      clock.now += 1001;
      await call(base, READS.http_get);
      await eventually(async () => total() === 9);
      expect(counts).toEqual({ error: 6, dropped: 3 });
    } finally {
      await close();
    }
  });
});

describe('the budget of shadow calls a second (SHADOW_MAX_PER_SECOND)', () => {
  it("starts at most that many a second, a burst of a second's worth, and refills with the clock", () => {
    let clock = 5_000;
    const budget = perSecondBudget(4, () => clock);
    const taken = (n: number) => Array.from({ length: n }, () => budget.take()).filter(Boolean).length;
    expect(taken(6)).toBe(4);
    clock += 500;
    expect(taken(3)).toBe(2);
    clock += 250;
    expect(taken(3)).toBe(1);
    // Never more than a second's worth saved up, however long it was idle.
    clock += 60_000;
    expect(taken(10)).toBe(4);
  });

  it('counts a sampled call past it as dropped, without sending it, and sends again when the clock allows', async () => {
    const legacy = await busyLegacy();
    const { base, counts, clock, close } = await shadowedServer(legacy.url, { maxPerSecond: 2 });
    const total = () => (counts.differs ?? 0) + (counts.dropped ?? 0);
    try {
      for (let i = 1; i <= 5; i++) {
        // Our answer is never held back by the budget.
        expect((await call(base, READS.http_get)).body.toString()).toBe('answer');
        await eventually(async () => total() === i);
      }
      expect(counts).toEqual({ differs: 2, dropped: 3 });
      expect(legacy.seen.calls).toBe(2);
      clock.now += 500;
      await call(base, READS.http_get);
      await eventually(async () => total() === 6);
      expect(counts).toEqual({ differs: 3, dropped: 3 });
      expect(legacy.seen.calls).toBe(3);
    } finally {
      await close();
      await legacy.close();
    }
  });
});
