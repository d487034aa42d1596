// Traces (docs/operating.md#traces): the spans a call, its statements, the
// queueing of a message and its send make, as a collector receives them over
// OTLP/HTTP, on both stores; and a service without the setting that loads
// nothing of OpenTelemetry. The service runs as its own process, as deployed:
// the exporter loads Node's http module with import(), which jest's module
// sandbox refuses.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { FIXTURES } from '../support/fixtures';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver';
import { ROOT, spawnSourceService } from '../support/source-service';
import { storeVariants, type TestStore } from '../support/stores';
import { envelope } from '../support/wire';

const SERVER = 2;
const CLIENT = 3;
const PRODUCER = 4;
const CONSUMER = 5;
const ERROR = 2;

// An incoming W3C trace context the first call must continue.
const INCOMING_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const INCOMING_PARENT = '00f067aa0ba902b7';
// One whose caller chose not to record it (flags 00).
const UNSAMPLED_TRACE = '0af7651916cd43dd8448eb211c80319c';

// What must never reach a span: the fixtures' tokens and names, and the numbers and codes the calls send.
const PHONE = '0944123456';
const CODE = '482913';
const PERSONAL = [
  ...(FIXTURES.devices ?? []).flatMap((device) => (device.token === null ? [] : [device.token])),
  ...(FIXTURES.students ?? []).map((student) => student.fullName),
  PHONE,
  '+963944123456',
  '944123456',
  CODE,
];

// The SDK's packages; @opentelemetry/api alone is loaded by prom-client's process metrics whatever we do.
const SDK_FILE = /\/node_modules\/@opentelemetry\/(?!api\/)/;

interface Run {
  /** What the service wrote to stdout and stderr. */
  readonly output: string;
  /** The OpenTelemetry files it had loaded when it exited. */
  readonly loaded: readonly string[];
  readonly exitCode: number | null;
}

/** Runs the service with `env`, `calls` against it, then SIGTERM; resolves once it exited. */
async function runService(
  env: Record<string, string>,
  calls: (base: string, output: () => string) => Promise<void>,
): Promise<Run> {
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'sns-traces-'));
  const loadedFile = path.join(scratch, 'loaded.txt');
  const child = spawnSourceService(
    { DEMO_DATA: 'false', LOG_LEVEL: 'info', ...env, LOADED_MODULES_FILE: loadedFile },
    { preload: [path.join(ROOT, 'test/ops/support/loaded-modules.js')] },
  );
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  // 'close', not 'exit': the last lines may still be in the pipes when the process has exited.
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  try {
    for (;;) {
      if (output.includes('"msg":"listening on')) break;
      if (child.exitCode !== null) throw new Error(`the service exited:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const port = Number(/"port":(\d+)/.exec(output)?.[1]);
    await calls(`http://127.0.0.1:${port}`, () => output);
    child.kill('SIGTERM');
    await exited;
    const loaded = readFileSync(loadedFile, 'utf8')
      .split('\n')
      .filter((line) => line !== '');
    return { output, loaded, exitCode: child.exitCode };
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    rmSync(scratch, { recursive: true, force: true });
  }
}

async function post(url: string, contentType: string, body: string, headers: Record<string, string> = {}) {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': contentType, ...headers }, body });
  await res.arrayBuffer();
  return res.status;
}

/** The store's location for the service process: the same data the test's own store sees. */
function storeEnv(testStore: TestStore): Record<string, string> {
  const { databaseUrl, schema, dataDir } = testStore.options;
  if (databaseUrl === undefined) return { DATA_DIR: dataDir };
  const options = encodeURIComponent(`-c search_path=${schema ?? 'public'}`);
  return {
    DATABASE_URL: `${databaseUrl}${databaseUrl.includes('?') ? '&' : '?'}options=${options}`,
    DATA_DIR: dataDir,
  };
}

const ADMIN_TOKEN = 'traces-test-admin-token-0123456789';

describe.each(storeVariants())('traces on $name', (variant) => {
  let receiver: OtlpReceiver;
  let testStore: TestStore;
  let run: Run;
  let spans: ReceivedSpan[];

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    testStore = await variant.create();
    await testStore.store.dataSet.writeDataSet(FIXTURES);
    const env = {
      ...storeEnv(testStore),
      WORKER: 'true',
      PUSH_PROVIDER: 'log',
      SMS_PROVIDER: 'log',
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      OTEL_SERVICE_NAME: 'sns-traces-test',
      ADMIN_TOKEN,
    };
    run = await runService(env, async (base) => {
      const soap11 = 'text/xml; charset=utf-8';
      const form = 'application/x-www-form-urlencoded';
      expect(
        await post(
          `${base}/PushNotificationMobile.asmx`,
          soap11,
          envelope('1.1', 'GetTokenDevice', { id: 'dev-1001' }),
          {
            soapaction: '"http://tempuri.org/GetTokenDevice"',
            traceparent: `00-${INCOMING_TRACE}-${INCOMING_PARENT}-01`,
            tracestate: 'vendor=opaque',
          },
        ),
      ).toBe(200);
      const get = await fetch(`${base}/PushNotificationMobile.asmx/GetTokenDevice?id=dev-1002`);
      await get.arrayBuffer();
      expect(get.status).toBe(200);
      const record = await fetch(`${base}/admin/api/v1/students/1001`, {
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      });
      await record.arrayBuffer();
      expect(record.status).toBe(200);
      const unsampled = await fetch(`${base}/PushNotificationMobile.asmx/GetTokenDevice?id=dev-1001`, {
        headers: { traceparent: `00-${UNSAMPLED_TRACE}-b7ad6b7169203331-00` },
      });
      await unsampled.arrayBuffer();
      expect(unsampled.status).toBe(200);
      /** Resolves once `count` messages are stored and every one of them is sent. */
      const sentAll = async (count: number) => {
        for (;;) {
          const rows = await testStore.query<{ status: string }>(
            'select status from push_notifications union all select status from auth_code_messages',
          );
          if (rows.length === count && rows.every((row) => row.status === 'sent')) return;
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      };
      const notify = new URLSearchParams({
        id: '1001',
        baseUrlSchool: 'https://school-a.example',
        TypeNotfication: 'absence',
      });
      expect(await post(`${base}/NotificationNotes.asmx/SendNotificationType`, form, notify.toString())).toBe(200);
      // The push sent before the login code is queued: each result then opens a group commit of its own, so
      // that its update shows under its own send (results that finish together go under the first one's).
      await sentAll(1);
      expect(
        await post(
          `${base}/AuthCodeSending.asmx`,
          'application/soap+xml; charset=utf-8; action="http://tempuri.org/AuthCode"',
          envelope('1.2', 'AuthCode', { code: CODE, phone: PHONE }),
        ),
      ).toBe(200);
      const refused = new URLSearchParams({ code: '12', phone: PHONE });
      expect(await post(`${base}/AuthCodeSending.asmx/AuthCode`, form, refused.toString())).toBe(500);
      // Both messages sent by the service's worker before it is stopped.
      await sentAll(2);
    });
    // The shutdown flushed every span before the process exited.
    spans = receiver.spans;
  });

  afterAll(async () => {
    await testStore?.cleanup();
    await receiver?.close();
  });

  const calls = () => spans.filter((span) => span.kind === SERVER);
  const callOf = (operation: string, binding: string) => {
    const found = calls().filter(
      (span) => span.attributes['sns.operation'] === operation && span.attributes['sns.binding'] === binding,
    );
    expect(found).toHaveLength(1);
    return found[0];
  };
  const childrenOf = (span: ReceivedSpan) =>
    spans.filter((each) => each.traceId === span.traceId && each.parentSpanId === span.spanId);

  it('sends JSON to /v1/traces with the service name, and loads the SDK to do it', () => {
    expect(receiver.rejected).toEqual([]);
    expect(spans.length).toBeGreaterThan(0);
    const version = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
    for (const span of spans) {
      expect(span.resource['service.name']).toBe('sns-traces-test');
      expect(span.resource['service.version']).toBe(version);
    }
    expect(run.loaded.some((file) => SDK_FILE.test(file))).toBe(true);
    expect(run.output).not.toContain('did not take a batch');
  });

  it('makes one server span per call, with the HTTP conventions and our own attributes', () => {
    expect(calls()).toHaveLength(6);
    const soap = callOf('GetTokenDevice', 'soap11');
    expect(soap.name).toBe('POST /PushNotificationMobile.asmx');
    expect(soap.attributes).toMatchObject({
      'http.request.method': 'POST',
      'url.path': '/PushNotificationMobile.asmx',
      'http.route': '/PushNotificationMobile.asmx',
      'http.response.status_code': 200,
      'sns.endpoint': 'PushNotificationMobile',
      'sns.binding': 'soap11',
      'sns.operation': 'GetTokenDevice',
      'sns.outcome': 'ok',
    });
    expect(typeof soap.attributes['sns.request_id']).toBe('string');
    const get = callOf('GetTokenDevice', 'http_get');
    expect(get.name).toBe('GET /PushNotificationMobile.asmx/GetTokenDevice');
    expect(get.attributes['url.path']).toBe('/PushNotificationMobile.asmx/GetTokenDevice');
    expect(callOf('AuthCode', 'soap12').attributes['sns.outcome']).toBe('ok');
    const refused = callOf('AuthCode', 'http_post');
    expect(refused.attributes).toMatchObject({
      'http.response.status_code': 500,
      'sns.outcome': 'client_fault',
      'sns.fault': 'code_invalid',
    });
    // A caller's mistake is not the service's error.
    expect(refused.statusCode).not.toBe(ERROR);
  });

  it('continues an incoming traceparent', () => {
    const soap = callOf('GetTokenDevice', 'soap11');
    expect(soap.traceId).toBe(INCOMING_TRACE);
    expect(soap.parentSpanId).toBe(INCOMING_PARENT);
    // Without one, a call starts a trace of its own.
    const get = callOf('GetTokenDevice', 'http_get');
    expect(get.traceId).not.toBe(INCOMING_TRACE);
    expect(get.parentSpanId).toBe('');
    // A caller's decision not to record its trace is followed.
    expect(spans.filter((span) => span.traceId === UNSAMPLED_TRACE)).toEqual([]);
  });

  it('puts the store statements a call makes under it, with their text and not their values', () => {
    const statements = childrenOf(callOf('GetTokenDevice', 'http_get'));
    expect(statements.length).toBeGreaterThan(0);
    for (const statement of statements) {
      expect(statement.kind).toBe(CLIENT);
      expect(statement.attributes['db.system.name']).toBe(variant.name === 'sqlite' ? 'sqlite' : 'postgresql');
      expect(statement.attributes['db.operation.name']).toBe('SELECT');
      expect(statement.attributes['db.query.text']).toMatch(/^select /i);
      expect(statement.attributes['db.query.text']).not.toContain('dev-1002');
    }
    expect(statements.map((statement) => statement.attributes['db.collection.name'])).toContain('devices');
  });

  it('makes a queueing span under the call, its insert under it, and a send span linked back to it', () => {
    const sendSpans: ReceivedSpan[] = [];
    for (const [operation, binding, table] of [
      ['SendNotificationType', 'http_post', 'push_notifications'],
      ['AuthCode', 'soap12', 'auth_code_messages'],
    ] as const) {
      const call = callOf(operation, binding);
      const queueing = childrenOf(call).filter((span) => span.kind === PRODUCER);
      expect(queueing).toHaveLength(1);
      const [queued] = queueing;
      expect(queued.name).toBe(`send ${table}`);
      expect(queued.attributes).toMatchObject({
        'messaging.operation.type': 'send',
        'messaging.destination.name': table,
      });
      const messageId = queued.attributes['messaging.message.id'];
      expect(typeof messageId).toBe('string');
      const inserts = childrenOf(queued).filter((span) => span.attributes['db.operation.name'] !== 'SELECT');
      expect(inserts.map((span) => span.attributes['db.collection.name'])).toContain(table);

      const sends = spans.filter(
        (span) => span.kind === CONSUMER && span.attributes['messaging.message.id'] === messageId,
      );
      expect(sends).toHaveLength(1);
      const [send] = sends;
      expect(send.name).toBe(`process ${table}`);
      expect(send.parentSpanId).toBe('');
      expect(send.traceId).not.toBe(call.traceId);
      expect(send.links).toEqual([{ traceId: call.traceId, spanId: queued.spanId }]);
      expect(send.attributes).toMatchObject({
        'messaging.operation.type': 'process',
        'sns.delivery.provider': 'log',
        'sns.delivery.attempt': 1,
        'sns.delivery.outcome': 'sent',
      });
      sendSpans.push(send);
    }
    // The results are written in a group commit: each table's update shows under the send that opened the batch.
    const written = sendSpans.flatMap((send) =>
      childrenOf(send).filter((span) => span.kind === CLIENT && span.attributes['db.operation.name'] === 'UPDATE'),
    );
    expect(new Set(written.map((span) => span.attributes['db.collection.name']))).toEqual(
      new Set(['push_notifications', 'auth_code_messages']),
    );
  });

  it('keeps the traceparent of the queueing span with the row', async () => {
    const queued = spans.find((span) => span.kind === PRODUCER && span.name === 'send auth_code_messages');
    const rows = await testStore.query<{ traceparent: string }>('select traceparent from auth_code_messages');
    expect(rows).toEqual([{ traceparent: `00-${queued?.traceId}-${queued?.spanId}-01` }]);
  });

  it('names an admin API request by its route, never by the path with the record id', () => {
    const [admin, ...more] = calls().filter((span) => span.attributes['sns.endpoint'] === 'admin');
    expect(more).toEqual([]);
    expect(admin?.name).toBe('GET /admin/api/v1/students/:id');
    expect(admin?.attributes).toMatchObject({
      'http.route': '/admin/api/v1/students/:id',
      'url.path': '/admin/api/v1/students/:id',
    });
  });

  it('puts no personal data in any attribute', () => {
    const text = JSON.stringify(spans.map((span) => [span.name, span.attributes]));
    for (const value of PERSONAL) expect(text).not.toContain(value);
  });
});

describe('without OTEL_EXPORTER_OTLP_ENDPOINT', () => {
  let dataDir: string;
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('loads nothing of the OpenTelemetry SDK', async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'sns-traces-off-'));
    const run = await runService({ DATA_DIR: dataDir, DEMO_DATA: 'true', WORKER: 'true' }, async (base) => {
      const res = await fetch(`${base}/PushNotificationMobile.asmx/GetTokenDevice?id=dev-1001`);
      await res.arrayBuffer();
      expect(res.status).toBe(200);
    });
    expect(run.loaded.filter((file) => SDK_FILE.test(file))).toEqual([]);
  });
});

describe('with a collector that is not there', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'sns-traces-dead-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  const call = async (base: string) => {
    const res = await fetch(`${base}/PushNotificationMobile.asmx/GetTokenDevice?id=dev-1001`);
    await res.arrayBuffer();
    expect(res.status).toBe(200);
  };
  const until = async (done: () => boolean) => {
    while (!done()) await new Promise((resolve) => setTimeout(resolve, 20));
  };

  it('answers as ever, says so in the log, and shuts down cleanly', async () => {
    // A port that was just free: nothing listens there.
    const gone = await startOtlpReceiver();
    await gone.close();
    const run = await runService(
      { DATA_DIR: dataDir, OTEL_EXPORTER_OTLP_ENDPOINT: gone.endpoint, SHUTDOWN_TIMEOUT_MS: '1000' },
      async (base, output) => {
        await call(base);
        await until(() => output().includes('did not take a batch of spans'));
        await call(base);
      },
    );
    expect(run.output).toMatch(/"level":40,.*"msg":"traces: the OTLP collector did not take a batch of spans/);
    expect(run.output).toContain('"clean":true');
    expect(run.exitCode).toBe(0);
  });

  it('does not hold up the shutdown when the collector takes the connection and never answers', async () => {
    const held: Socket[] = [];
    const silent = createServer((socket) => held.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = silent.address() as AddressInfo;
      const run = await runService(
        { DATA_DIR: dataDir, OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`, SHUTDOWN_TIMEOUT_MS: '1000' },
        async (base) => {
          await call(base);
          // An export is under way, waiting for an answer that never comes.
          await until(() => held.length > 0);
        },
      );
      expect(run.output).toContain('"clean":true');
      expect(run.exitCode).toBe(0);
    } finally {
      for (const socket of held) socket.destroy();
      silent.close();
    }
  });
});
