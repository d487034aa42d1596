// `npm run test:container` (docs/testing.md#the-container-image): builds the
// image from the Dockerfile with podman and checks the running container
// against what docs/operating.md#deployment promises: probes, the same bytes
// as the service outside a container, a user other than root, a clean stop on
// SIGTERM, data that outlives the container, PostgreSQL, a worker container
// that delivers, the HEALTHCHECK; and compose.yaml against docker-compose.
// Without podman (or the base image) it says why and skips; with
// CONTAINER_TEST_REQUIRED=true (.ci/run) that is a failure instead.
import { randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import bcrypt from 'bcryptjs';
import { Client } from 'pg';
import { parse as parseYaml } from 'yaml';
import { loadConfig, secretSettingNames } from '../../src/config';
import { startService, type ServiceProcess } from '../chaos/support/service-process';
import { envelope } from '../support/wire';
import { startFakeWebhook, type FakeWebhook } from './support/fake-webhook';
import { describeOrSkip } from '../support/tools';
import {
  SUITE_LABEL,
  composeUnavailable,
  containerState,
  podman,
  podmanOk,
  podmanUnavailable,
  publishedPort,
  removeLabelled,
  run,
} from './support/podman';

const ROOT = path.resolve(__dirname, '../..');
const VERSION = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const BASE_IMAGE = process.env.CONTAINER_BASE_IMAGE?.trim() || 'docker.io/library/node:24-bookworm-slim';
const IMAGE = 'localhost/student-notification-service:container-test';
const REQUIRED = process.env.CONTAINER_TEST_REQUIRED === 'true';
/** An npmrc for npm inside the build (a registry behind a TLS proxy): mounted with the host's CA certificates. */
const BUILD_NPMRC = process.env.CONTAINER_BUILD_NPMRC?.trim() ?? '';
const DATABASE_URL = process.env.TEST_DATABASE_URL?.trim() || 'postgres://postgres@127.0.0.1:5432/test';
const BUILD_TIMEOUT_MS = 15 * 60_000;
/** How long a container gets to answer /healthz, or a push to arrive: bounds, not measurements. */
const START_BOUND_MS = 90_000;
const DELIVERY_BOUND_MS = 60_000;
const ADMIN_TOKEN = randomBytes(16).toString('hex');
const RUN_ID = randomBytes(4).toString('hex');

/** compose.yaml's Caddy, for the replicas behind it: the image its `caddy` service names. */
const CADDY_IMAGE = (
  parseYaml(readFileSync(path.join(ROOT, 'compose.yaml'), 'utf8')) as { services: { caddy: { image: string } } }
).services.caddy.image;
const CONSOLE_PASSWORD = 'container console password';

const podmanMissing = podmanUnavailable(BASE_IMAGE);
const composeMissing = composeUnavailable();

function skipOrFail(reason: string | null, what: string): boolean {
  if (reason === null) return false;
  if (REQUIRED) throw new Error(`${what} cannot run and CONTAINER_TEST_REQUIRED=true: ${reason}`);
  process.stdout.write(`\ntest:container SKIPPED ${what}: ${reason}\n\n`);
  return true;
}

const describeImage = (title: string, body: () => void) =>
  describeOrSkip(skipOrFail(podmanMissing, 'the container image tests') ? podmanMissing : null, title, body);
const describeCompose = (title: string, body: () => void) =>
  describeOrSkip(skipOrFail(composeMissing, 'the compose file checks') ? composeMissing : null, title, body);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `probe` until it returns a value (not undefined), or rejects after `boundMs` with `what` and `explain()`. */
async function waitFor<T>(
  what: string,
  boundMs: number,
  probe: () => Promise<T | undefined>,
  explain: () => Promise<string> = () => Promise.resolve(''),
): Promise<T> {
  const deadline = Date.now() + boundMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${boundMs / 1000} s\n${await explain()}`);
    await sleep(250);
  }
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

interface Answer {
  readonly status: number;
  readonly contentType: string | null;
  readonly body: Buffer;
}

async function answer(url: string, init?: RequestInit): Promise<Answer> {
  const res = await fetch(url, init);
  return {
    status: res.status,
    contentType: res.headers.get('content-type'),
    body: Buffer.from(await res.arrayBuffer()),
  };
}

/** `podman build` of this repository's Dockerfile; `--format docker` keeps the HEALTHCHECK (OCI has none). */
function buildArgs(version: string, tag: string): string[] {
  const args = ['build', '--pull=never', '--format', 'docker', '--build-arg', `NODE_IMAGE=${BASE_IMAGE}`];
  if (BUILD_NPMRC !== '') args.push('-v', '/etc/ssl/certs:/etc/ssl/certs:ro', '-v', `${BUILD_NPMRC}:/root/.npmrc:ro`);
  return [...args, '--build-arg', `VERSION=${version}`, '-t', tag, ROOT];
}

function envArgs(env: Record<string, string>): string[] {
  return Object.entries(env).flatMap(([key, value]) => ['-e', `${key}=${value}`]);
}

/** Runs `command` in a throw-away container of the image (after the `podman run` options) and returns its stdout. */
function runOnce(command: string[], options: string[] = ['--no-healthcheck']): Promise<string> {
  return podmanOk(['run', '--rm', '--label', SUITE_LABEL, ...options, IMAGE, ...command]);
}

/** `podman run -d` of the image (or `image`), labelled for clean-up; `args` go before the image, `command` after it. */
async function startContainer(name: string, args: string[], command: string[] = [], image = IMAGE): Promise<void> {
  await podmanOk([
    'run',
    '-d',
    '--name',
    name,
    '--label',
    SUITE_LABEL,
    '--stop-timeout',
    '20',
    ...args,
    image,
    ...command,
  ]);
}

/** Resolves once the container's /healthz answers 200 on `port`; rejects with its log when it does not. */
async function healthy(name: string, port: number): Promise<void> {
  await waitFor(
    `${name} answering /healthz`,
    START_BOUND_MS,
    async () => ((await fetch(`http://127.0.0.1:${port}/healthz`)).status === 200 ? true : undefined),
    async () => (await podman(['logs', name])).stdout.slice(-4000),
  );
}

/** Stops the container the way an orchestrator does (SIGTERM) and returns its exit code and log. */
async function stopContainer(name: string): Promise<{ exitCode: number; log: string }> {
  await podmanOk(['stop', '-t', '20', name]);
  const { exitCode } = await containerState(name);
  const logs = await podman(['logs', name]);
  return { exitCode, log: logs.stdout + logs.stderr };
}

/** The JSON log lines of a container's log with the given `msg`. */
function logLines(log: string, msg: string): Record<string, unknown>[] {
  return log
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((entry) => entry.msg === msg);
}

async function admin(port: number, method: string, route: string, body?: unknown): Promise<Answer> {
  return answer(`http://127.0.0.1:${port}/admin/api/v1/${route}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

function sendNotification(port: number, id: string, school: string): Promise<Answer> {
  return answer(`http://127.0.0.1:${port}/NotificationNotes.asmx/SendNotificationType`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ id, baseUrlSchool: school, TypeNotfication: 'absence' }).toString(),
  });
}

/**
 * The environment compose.yaml gives `service` with .env.example's values, or
 * nothing when docker-compose is not installed (the compose checks say so).
 */
async function composeEnvironment(service: string): Promise<Record<string, string>> {
  if (composeMissing !== null) return {};
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sns-compose-env-'));
  try {
    const envFile = path.join(dir, 'env');
    copyFileSync(path.join(ROOT, '.env.example'), envFile);
    const result = await run('docker-compose', [
      '-f',
      path.join(ROOT, 'compose.yaml'),
      '--env-file',
      envFile,
      'config',
    ]);
    if (result.code !== 0) throw new Error(`docker-compose config failed:\n${result.stderr}`);
    const config = parseYaml(result.stdout) as { services: Record<string, { environment?: Record<string, string> }> };
    // The containers here get their secrets as values from the test, not as compose's files under /run/secrets.
    return Object.fromEntries(
      Object.entries(config.services[service]?.environment ?? {}).filter(
        ([, value]) => !String(value).startsWith('/run/secrets/'),
      ),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Null when podman has compose.yaml's Caddy image, else after building a
 * stand-in under that same name; else why it could not. No image registry is
 * reachable on the CI machines, so Caddy's official image cannot be pulled
 * there: the stand-in is the suite's Node base image (local, --pull=never)
 * with Debian's `caddy` package, which runs the same `caddy run` command
 * (docs/testing.md#the-container-image).
 */
async function caddyImage(): Promise<string | null> {
  if ((await podman(['image', 'exists', CADDY_IMAGE])).code === 0) return null;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sns-caddy-image-'));
  try {
    writeFileSync(
      path.join(dir, 'Containerfile'),
      [
        `FROM ${BASE_IMAGE}`,
        'RUN apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends caddy' +
          ' && rm -rf /var/lib/apt/lists/* && caddy version',
        'CMD ["caddy", "run", "--config", "/etc/caddy/Caddyfile", "--adapter", "caddyfile"]',
        '',
      ].join('\n'),
    );
    const built = await podman(['build', '--pull=never', '-t', CADDY_IMAGE, dir], BUILD_TIMEOUT_MS);
    return built.code === 0
      ? null
      : `${CADDY_IMAGE} is not in podman's store and a stand-in with Debian's caddy could not be built: ${built.stderr.trim().slice(-300)}`;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The value of the hidden CSRF field in a console page. */
function hiddenValue(page: string): string {
  return /<input type="hidden" name="csrf" value="([^"]*)"/.exec(page)?.[1] ?? '';
}

/** A browser of the console at `base`: keeps its cookies, follows no redirect. */
function consoleBrowser(base: string) {
  const cookies = new Map<string, string>();
  const keep = (res: Response) => {
    for (const line of res.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const eq = pair.indexOf('=');
      if (eq > 0) cookies.set(pair.slice(0, eq), pair.slice(eq + 1));
    }
  };
  const cookie = () => [...cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  const get = async (route: string, origin = base) => {
    const res = await fetch(`${origin}${route}`, { headers: { cookie: cookie() }, redirect: 'manual' });
    keep(res);
    return { status: res.status, text: await res.text() };
  };
  const send = async (route: string, body: FormData | URLSearchParams) => {
    const res = await fetch(`${base}${route}`, {
      method: 'POST',
      body,
      headers: { cookie: cookie() },
      redirect: 'manual',
    });
    keep(res);
    await res.arrayBuffer();
    return { status: res.status, location: res.headers.get('location') ?? '' };
  };
  return {
    get,
    send,
    async signIn(name: string, password: string) {
      const form = await get('/console/sign-in');
      const answer = await send(
        '/console/sign-in',
        new URLSearchParams({ csrf: hiddenValue(form.text), name, password }),
      );
      if (answer.status !== 303) throw new Error(`the console's sign-in answered ${answer.status}`);
    },
  };
}

describeImage('the container image', () => {
  const volume = `sns-ct-${RUN_ID}-data`;
  const web = `sns-ct-${RUN_ID}-web`;
  let webPort = 0;
  let host: ServiceProcess | null = null;
  let hostDataDir = '';
  let webhook: FakeWebhook | null = null;

  beforeAll(async () => {
    await removeLabelled();
    const started = Date.now();
    await podmanOk(buildArgs(VERSION, IMAGE), BUILD_TIMEOUT_MS);
    const seconds = (Date.now() - started) / 1000;
    const size = Number(await podmanOk(['image', 'inspect', '--format', '{{.Size}}', IMAGE]));
    const baseSize = Number(await podmanOk(['image', 'inspect', '--format', '{{.Size}}', BASE_IMAGE]));
    process.stdout.write(
      `\ntest:container: image built in ${seconds.toFixed(1)} s; ${(size / 1e6).toFixed(1)} MB, ` +
        `of which the base image ${BASE_IMAGE} ${(baseSize / 1e6).toFixed(1)} MB and this service's layers ${((size - baseSize) / 1e6).toFixed(1)} MB\n\n`,
    );

    await podmanOk(['volume', 'create', '--label', SUITE_LABEL, volume]);
    await startContainer(web, ['-p', '127.0.0.1::8080', '-v', `${volume}:/data`, '-e', `ADMIN_TOKEN=${ADMIN_TOKEN}`]);
    webPort = await publishedPort(web);
    hostDataDir = mkdtempSync(path.join(os.tmpdir(), 'sns-container-host-'));
    host = await startService({ DEMO_DATA: 'true', DATA_DIR: hostDataDir });
    webhook = await startFakeWebhook();
    await healthy(web, webPort);
  }, BUILD_TIMEOUT_MS + START_BOUND_MS);

  afterAll(async () => {
    await removeLabelled();
    await host?.stop();
    await webhook?.close();
    if (hostDataDir !== '') rmSync(hostDataDir, { recursive: true, force: true });
  });

  test('the image carries its labels, health check, user, port, volume and the Node flag of npm start', async () => {
    const [image] = JSON.parse(await podmanOk(['image', 'inspect', IMAGE])) as {
      Config: unknown;
      Healthcheck: unknown;
    }[];
    const config = image.Config as {
      Labels: Record<string, string>;
      User: string;
      ExposedPorts: Record<string, unknown>;
      Volumes: Record<string, unknown>;
      Env: string[];
      Cmd: string[];
      StopSignal: string;
    };
    expect(config.Labels['org.opencontainers.image.version']).toBe(VERSION);
    expect(config.Labels['org.opencontainers.image.licenses']).toBe('UNLICENSED');
    expect(Object.keys(config.Labels)).toContain('org.opencontainers.image.source');
    // podman reports the docker format's HEALTHCHECK beside Config.
    expect(image.Healthcheck).toMatchObject({ Test: ['CMD', 'node', 'scripts/healthcheck.js'] });
    expect(config.StopSignal).toBe('SIGTERM');
    expect(config.User).toBe('sns');
    expect(Object.keys(config.ExposedPorts)).toEqual(['8080/tcp']);
    expect(Object.keys(config.Volumes)).toEqual(['/data']);
    expect(config.Env).toEqual(expect.arrayContaining(['NODE_ENV=production', 'DATA_DIR=/data']));
    expect(config.Cmd).toEqual(['node', '--max-semi-space-size=32', 'dist/main.js']);
  });

  test('the build refuses a VERSION other than package.json', async () => {
    const result = await podman(buildArgs('0.0.0-not-this', `${IMAGE}-refused`), BUILD_TIMEOUT_MS);
    expect(result.code).not.toBe(0);
    expect(result.stdout + result.stderr).toContain(`VERSION 0.0.0-not-this is not package.json's ${VERSION}`);
  });

  test('no compiler in the image; better-sqlite3 keeps only the binding it loads', async () => {
    const script =
      'for tool in gcc cc g++ make python3; do command -v $tool; done; ' +
      'ls node_modules/better-sqlite3/prebuilds; ls node_modules/better-sqlite3; ' +
      "node -p \"new (require('better-sqlite3'))(':memory:').prepare('select sqlite_version() v').get().v\"";
    const out = await runOnce(['-c', script], ['--entrypoint', 'sh']);
    const lines = out.trim().split('\n');
    expect(lines.filter((line) => line.startsWith('/'))).toEqual([]);
    expect(lines[0]).toBe('linux-x64.node');
    expect(lines).not.toContain('build');
    expect(lines).not.toContain('deps');
    expect(lines[lines.length - 1]).toMatch(/^3\.\d+\.\d+$/);
  });

  test('/healthz and /readyz answer', async () => {
    const live = await answer(`http://127.0.0.1:${webPort}/healthz`);
    expect(live.status).toBe(200);
    expect(JSON.parse(live.body.toString('utf8'))).toEqual({ status: 'pass', version: VERSION });
    const ready = await answer(`http://127.0.0.1:${webPort}/readyz`);
    expect(ready.status).toBe(200);
    expect(JSON.parse(ready.body.toString('utf8'))).toMatchObject({ status: 'pass' });
  });

  test('SOAP 1.1 and HTTP GET answer byte for byte as the service outside a container', async () => {
    const calls: [string, RequestInit | undefined][] = [
      ['/PushNotificationMobile.asmx/GetTokenDevice?id=dev-1001', undefined],
      ['/PushNotificationMobile.asmx/GetTokenDevice?id=no-such-device', undefined],
      ['/GetStudentsAudit.asmx/GetStudentSchool?id=2001', undefined],
      ...['dev-1001', 'no-such-device'].map((id): [string, RequestInit] => [
        '/PushNotificationMobile.asmx',
        {
          method: 'POST',
          headers: { 'content-type': 'text/xml; charset=utf-8', soapaction: '"http://tempuri.org/GetTokenDevice"' },
          body: envelope('1.1', 'GetTokenDevice', { id }),
        },
      ]),
    ];
    for (const [route, init] of calls) {
      const outside = await answer(`http://127.0.0.1:${host?.port ?? 0}${route}`, init);
      const inside = await answer(`http://127.0.0.1:${webPort}${route}`, init);
      expect({ route, status: inside.status, contentType: inside.contentType }).toEqual({
        route,
        status: outside.status,
        contentType: outside.contentType,
      });
      expect(inside.body.toString('utf8')).toBe(outside.body.toString('utf8'));
      expect(inside.body.equals(outside.body)).toBe(true);
    }
    const token = await answer(`http://127.0.0.1:${webPort}/PushNotificationMobile.asmx/GetTokenDevice?id=dev-1001`);
    expect(token.body.toString('utf8')).toContain('>demo-fcm-token-1001</string>');
  });

  test('the process in the container is not root', async () => {
    const uid = (await podmanOk(['exec', web, 'id', '-u'])).trim();
    expect(uid).toMatch(/^\d+$/);
    expect(uid).not.toBe('0');
    const status = await podmanOk(['exec', web, 'cat', '/proc/1/status']);
    const realUid = /^Uid:\s+(\d+)/m.exec(status)?.[1];
    expect(realUid).toBe(uid);
    const command = await podmanOk(['exec', web, 'cat', '/proc/1/cmdline']);
    expect(command.split('\0').filter((part) => part !== '')).toEqual([
      'node',
      '--max-semi-space-size=32',
      'dist/main.js',
    ]);
  });

  test('the HEALTHCHECK turns healthy, and its script fails when nothing answers', async () => {
    const check = await podman(['healthcheck', 'run', web]);
    expect({ code: check.code, stderr: check.stderr.includes('unhealthy') }).toEqual({ code: 0, stderr: false });
    expect((await containerState(web)).health).toBe('healthy');
    const failing = await podman(['exec', '-e', 'PORT=1', web, 'node', 'scripts/healthcheck.js']);
    expect(failing.code).toBe(1);
    expect(failing.stderr).toContain('unhealthy: /healthz on port 1 failed');
  });

  test('the commands run from the same image with another command', async () => {
    for (const command of [
      'dist/main.js',
      'dist/cli/worker.js',
      ...['import', 'export', 'user', 'outbox'].map((c) => `dist/cli/${c}.js`),
    ]) {
      const out = await runOnce(['node', command, '--version']);
      expect({ command, out: out.trim() }).toEqual({ command, out: VERSION });
    }
    const usage = await runOnce(['node', 'dist/cli/export.js', '--help']);
    expect(usage).toContain('Usage');
  });

  test('podman stop ends it cleanly, and the SQLite data outlives the container on its volume', async () => {
    const put = await admin(webPort, 'PUT', 'devices/dev-container', {
      token: `container-token-${RUN_ID}`,
      platform: 'android',
    });
    expect(put.status).toBe(201);

    const { exitCode, log } = await stopContainer(web);
    expect(exitCode).toBe(0);
    expect(logLines(log, 'shutting down: no new connections; finishing requests in flight')).toEqual([
      expect.objectContaining({ reason: 'SIGTERM' }),
    ]);
    expect(logLines(log, 'shutdown complete')).toEqual([expect.objectContaining({ clean: true })]);
    await podmanOk(['rm', '-v', web]);

    // The same volume under a new container, now without its in-process worker (for the worker test below).
    await startContainer(web, [
      '-p',
      '127.0.0.1::8080',
      '-v',
      `${volume}:/data`,
      '-e',
      `ADMIN_TOKEN=${ADMIN_TOKEN}`,
      '-e',
      'WORKER=false',
    ]);
    webPort = await publishedPort(web);
    await healthy(web, webPort);
    const token = await answer(
      `http://127.0.0.1:${webPort}/PushNotificationMobile.asmx/GetTokenDevice?id=dev-container`,
    );
    expect(token.body.toString('utf8')).toContain(`>container-token-${RUN_ID}</string>`);
  });

  test('a worker container on the same volume delivers a queued push to a webhook, and stops cleanly', async () => {
    const hook = webhook as FakeWebhook;
    const worker = `sns-ct-${RUN_ID}-worker`;
    const queued = await sendNotification(webPort, '1001', 'https://alnoor.school.example');
    expect(queued.status).toBe(200);
    await startContainer(
      worker,
      [
        '--network',
        'host',
        '--no-healthcheck',
        '-v',
        `${volume}:/data`,
        ...envArgs({
          PUSH_PROVIDER: 'webhook',
          PUSH_WEBHOOK_URL: hook.url,
          PUSH_WEBHOOK_TOKEN: `hook-${RUN_ID}`,
          DELIVERY_POLL_MS: '200',
        }),
      ],
      ['node', 'dist/cli/worker.js'],
    );
    const push = await waitFor(
      'the push at the webhook',
      DELIVERY_BOUND_MS,
      () => Promise.resolve(hook.received.find((each) => each.body.data?.studentId === '1001')),
      async () => (await podman(['logs', worker])).stdout.slice(-4000),
    );
    expect(push.body.token).toBe('demo-fcm-token-1001');
    expect(push.authorization).toBe(`Bearer hook-${RUN_ID}`);
    const sent = await waitFor('the message marked sent', DELIVERY_BOUND_MS, async () => {
      const list = await admin(webPort, 'GET', 'outbox/push?studentId=1001');
      const items = (JSON.parse(list.body.toString('utf8')) as { items: { status: string }[] }).items;
      return items.some((item) => item.status === 'sent') ? items : undefined;
    });
    expect(sent.length).toBeGreaterThan(0);

    const { exitCode, log } = await stopContainer(worker);
    expect(exitCode).toBe(0);
    expect(logLines(log, 'worker shutting down')).toEqual([expect.objectContaining({ signal: 'SIGTERM' })]);
  });

  describe('on PostgreSQL (DATABASE_URL)', () => {
    const schema = `container_test_${RUN_ID}`;
    let pgMissing: string | null = null;

    beforeAll(async () => {
      const client = new Client({ connectionString: DATABASE_URL });
      try {
        await client.connect();
        await client.query(`create schema ${schema}`);
      } catch (error) {
        pgMissing = `PostgreSQL at ${DATABASE_URL} does not answer (${error instanceof Error ? error.message : String(error)})`;
      } finally {
        await client.end().catch(() => undefined);
      }
    });

    afterAll(async () => {
      if (pgMissing !== null) return;
      await removeLabelled();
      const client = new Client({ connectionString: DATABASE_URL });
      await client.connect();
      try {
        await client.query(`drop schema if exists ${schema} cascade`);
      } finally {
        await client.end();
      }
    });

    test('the service and a worker container share the database; a queued push is delivered', async () => {
      if (skipOrFail(pgMissing, 'the PostgreSQL test')) return;
      const hook = webhook as FakeWebhook;
      const separator = DATABASE_URL.includes('?') ? '&' : '?';
      const databaseUrl = `${DATABASE_URL}${separator}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
      const pgWeb = `sns-ct-${RUN_ID}-pg-web`;
      const pgWorker = `sns-ct-${RUN_ID}-pg-worker`;
      const [port, metricsPort, workerMetricsPort] = [await freePort(), await freePort(), await freePort()];
      // Each container gets the environment compose.yaml gives its service (from .env.example), with the
      // addresses of this machine: so the stack's settings are checked by the service itself.
      await startContainer(pgWeb, [
        '--network',
        'host',
        ...envArgs({
          ...(await composeEnvironment('service')),
          DATABASE_URL: databaseUrl,
          PORT: String(port),
          HOST: '127.0.0.1',
          METRICS_PORT: String(metricsPort),
          WORKER: 'false',
          ADMIN_TOKEN,
        }),
      ]);
      await healthy(pgWeb, port);
      expect((await answer(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);
      // Where compose.yaml's Prometheus scrapes the replicas.
      const metrics = await answer(`http://127.0.0.1:${metricsPort}/metrics`);
      expect(metrics.status).toBe(200);
      expect(metrics.body.toString('utf8')).toContain('notify_outbox_pending');

      const school = 'https://container.school.example';
      expect((await admin(port, 'POST', 'schools', { baseUrl: school, name: 'Container School' })).status).toBe(201);
      expect(
        (await admin(port, 'PUT', 'devices/dev-pg', { token: `pg-token-${RUN_ID}`, platform: 'ios' })).status,
      ).toBe(201);
      const student = { id: 'pg-1', school, fullName: 'Lina Haddad', deviceId: 'dev-pg', active: '1' };
      expect((await admin(port, 'POST', 'students', student)).status).toBe(201);
      const token = await answer(`http://127.0.0.1:${port}/PushNotificationMobile.asmx/GetTokenDevice?id=dev-pg`);
      expect(token.body.toString('utf8')).toContain(`>pg-token-${RUN_ID}</string>`);

      // The rows are in the test's own schema, nowhere else.
      const client = new Client({ connectionString: DATABASE_URL });
      await client.connect();
      try {
        const rows = await client.query(`select count(*)::int as n from ${schema}.students where id = 'pg-1'`);
        expect(rows.rows).toEqual([{ n: 1 }]);
      } finally {
        await client.end();
      }

      expect((await sendNotification(port, 'pg-1', school)).status).toBe(200);
      await startContainer(
        pgWorker,
        [
          '--network',
          'host',
          // compose.yaml's health check of the worker: its /metrics.
          '--health-cmd',
          'node scripts/healthcheck.js /metrics',
          ...envArgs({
            ...(await composeEnvironment('worker')),
            DATABASE_URL: databaseUrl,
            METRICS_PORT: String(workerMetricsPort),
            HEALTHCHECK_PORT: String(workerMetricsPort),
            PUSH_PROVIDER: 'webhook',
            PUSH_WEBHOOK_URL: hook.url,
          }),
        ],
        ['node', 'dist/cli/worker.js'],
      );
      const push = await waitFor(
        'the push at the webhook',
        DELIVERY_BOUND_MS,
        () => Promise.resolve(hook.received.find((each) => each.body.data?.studentId === 'pg-1')),
        async () => (await podman(['logs', pgWorker])).stdout.slice(-4000),
      );
      expect(push.body.token).toBe(`pg-token-${RUN_ID}`);
      expect((await podman(['healthcheck', 'run', pgWorker])).code).toBe(0);
      expect((await containerState(pgWorker)).health).toBe('healthy');

      for (const name of [pgWorker, pgWeb]) {
        const { exitCode } = await stopContainer(name);
        expect({ name, exitCode }).toEqual({ name, exitCode: 0 });
      }
    });

    // compose.yaml's `tls` profile: two replicas (WORKER=false) behind Caddy's round robin, one worker
    // (docs/console.md#importing-a-roster). A roster import started through the proxy is followed through it,
    // so that its pages alternate between the replicas, and each replica is asked for it directly as well.
    test('a console import started through Caddy is followed through it on both replicas, run by the worker', async () => {
      if (skipOrFail(pgMissing, 'the PostgreSQL test')) return;
      const caddyMissing = await caddyImage();
      if (skipOrFail(caddyMissing, 'the replicas behind Caddy')) return;
      const separator = DATABASE_URL.includes('?') ? '&' : '?';
      const databaseUrl = `${DATABASE_URL}${separator}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
      const ports = [await freePort(), await freePort()];
      const proxyPort = await freePort();
      const names = ports.map((_, at) => `sns-ct-${RUN_ID}-replica-${at}`);
      for (const [at, name] of names.entries()) {
        await startContainer(name, [
          '--network',
          'host',
          ...envArgs({
            ...(await composeEnvironment('service')),
            DATABASE_URL: databaseUrl,
            PORT: String(ports[at]),
            HOST: '127.0.0.1',
            // compose gives every container METRICS_PORT 9464; on one host network each needs a port of its own.
            METRICS_PORT: String(await freePort()),
            WORKER: 'false',
            TRUST_PROXY: '127.0.0.1',
          }),
        ]);
        await healthy(name, ports[at] ?? 0);
      }
      const worker = `sns-ct-${RUN_ID}-import-worker`;
      await startContainer(
        worker,
        [
          '--network',
          'host',
          ...envArgs({
            ...(await composeEnvironment('worker')),
            DATABASE_URL: databaseUrl,
            METRICS_PORT: String(await freePort()),
          }),
        ],
        ['node', 'dist/cli/worker.js'],
      );
      // The repository's Caddyfile finds the replicas by compose's DNS name; on the host network, by their ports.
      const caddyDir = mkdtempSync(path.join(os.tmpdir(), 'sns-caddy-'));
      writeFileSync(
        path.join(caddyDir, 'Caddyfile'),
        `{\n\tadmin off\n\tauto_https off\n}\nhttp://127.0.0.1:${proxyPort} {\n\treverse_proxy ${ports.map((port) => `127.0.0.1:${port}`).join(' ')} {\n\t\tlb_policy round_robin\n\t}\n}\n`,
      );
      const caddy = `sns-ct-${RUN_ID}-caddy`;
      await startContainer(
        caddy,
        ['--network', 'host', '-v', `${caddyDir}/Caddyfile:/etc/caddy/Caddyfile:ro`],
        ['caddy', 'run', '--config', '/etc/caddy/Caddyfile', '--adapter', 'caddyfile'],
        CADDY_IMAGE,
      ).catch(async (error: unknown) => {
        throw new Error(`${String(error)}\n${(await podman(['logs', caddy])).stderr.slice(-2000)}`);
      });
      const proxy = `http://127.0.0.1:${proxyPort}`;
      await waitFor('Caddy answering', START_BOUND_MS, async () =>
        (await fetch(`${proxy}/healthz`)).status === 200 ? true : undefined,
      );

      // Two operators, written as `npm run operator` writes them (the replicas have migrated the schema by now).
      const client = new Client({ connectionString: DATABASE_URL });
      await client.connect();
      try {
        for (const name of ['olga', 'oskar'])
          await client.query(
            `insert into ${schema}.console_accounts (name, password_hash, role, disabled, created_at, updated_at) values ($1, $2, 'operator', 0, $3, $3)`,
            [name, bcrypt.hashSync(CONSOLE_PASSWORD, 4), new Date().toISOString()],
          );
      } finally {
        await client.end();
      }
      const browser = consoleBrowser(proxy);
      await browser.signIn('olga', CONSOLE_PASSWORD);
      const form = await browser.get('/console/import');
      const upload = new FormData();
      upload.set('csrf', hiddenValue(form.text));
      upload.set('collection', 'schools');
      // About 1.9 MB: kept in two chunks of the store (docs/console.md#importing-a-roster).
      const roster = [
        'baseUrl,name',
        ...Array.from({ length: 30_000 }, (_, i) => `https://ct-${i}.school.example,School number ${i} of the test`),
      ];
      upload.set('file', new Blob([roster.join('\n')], { type: 'text/csv' }), 'schools.csv');
      const started = await browser.send('/console/import', upload);
      expect(started.status).toBe(303);
      const job = started.location;
      expect(job).toMatch(/^\/console\/import\/[A-Za-z0-9_-]{24}$/);

      const follow = (done: string) =>
        waitFor(`${job} showing "${done}" through Caddy`, START_BOUND_MS, async () => {
          const page = await browser.get(job);
          expect(page.status).toBe(200);
          return page.text.includes(done) ? page.text : undefined;
        });
      const checked = await follow('Nothing has been written yet.');
      const chunks = new Client({ connectionString: DATABASE_URL });
      await chunks.connect();
      try {
        const stored = await chunks.query<{ n: string }>(
          `select count(*) as n from ${schema}.console_upload_chunks where upload_id = $1`,
          [job.split('/').at(-1)],
        );
        const bytes = Buffer.byteLength(roster.join('\n'));
        expect(bytes).toBeGreaterThan(1024 * 1024);
        expect(Number(stored.rows[0]?.n)).toBe(Math.ceil(bytes / (1024 * 1024)));
      } finally {
        await chunks.end();
      }
      // Either replica shows the job, asked directly.
      for (const port of ports) expect((await browser.get(job, `http://127.0.0.1:${port}`)).status).toBe(200);
      const apply = new URLSearchParams({ csrf: hiddenValue(checked) });
      expect((await browser.send(`${job}/apply`, apply)).status).toBe(303);
      await follow('The file has been written:');
      const report = await browser.get(`${job}/apply.txt`);
      expect(report.status).toBe(200);
      expect(report.text).toContain('schools: 30,000 inserted');

      // The sign-in throttle counts the failures that reached either replica: 3 on one and 2 on the other
      // make oskar's 5 (an account never signed in from this address), and the next attempt is refused on
      // the first, with the right password.
      const attempt = async (port: number, password: string) => {
        const direct = consoleBrowser(`http://127.0.0.1:${port}`);
        const form = await direct.get('/console/sign-in');
        return (
          await direct.send(
            '/console/sign-in',
            new URLSearchParams({ csrf: hiddenValue(form.text), name: 'oskar', password }),
          )
        ).status;
      };
      const [one = 0, two = 0] = ports;
      const failed = [];
      for (const port of [one, one, one, two, two]) failed.push(await attempt(port, 'not the password'));
      expect(failed).toEqual([401, 401, 401, 401, 401]);
      expect(await attempt(one, CONSOLE_PASSWORD)).toBe(429);

      for (const name of [caddy, worker, ...names]) await stopContainer(name);
      rmSync(caddyDir, { recursive: true, force: true });
    });
  });
});

describeCompose('the compose stack', () => {
  let dir = '';
  let envFile = '';

  const SECRET_FILES = [
    'postgres_password',
    'database_url',
    'admin_token',
    'grafana_admin_password',
    'push_webhook_token',
    'sms_http_headers',
    'twilio_auth_token',
  ];

  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'sns-compose-'));
    envFile = path.join(dir, 'env');
    // .env.example, its secrets folder one the test made as docs/operating.md#compose says.
    const secrets = path.join(dir, 'secrets');
    mkdirSync(secrets);
    for (const name of SECRET_FILES) writeFileSync(path.join(secrets, name), `${name}-value\n`);
    const example = readFileSync(path.join(ROOT, '.env.example'), 'utf8');
    writeFileSync(envFile, example.replace(/^SNS_SECRETS_DIR=.*$/m, `SNS_SECRETS_DIR=${secrets}`));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  async function config(profile: string | null): Promise<ComposeConfig> {
    const args = ['-f', path.join(ROOT, 'compose.yaml'), '--env-file', envFile];
    if (profile !== null) args.push('--profile', profile);
    const result = await run('docker-compose', [...args, 'config']);
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    return parseYaml(result.stdout) as ComposeConfig;
  }

  interface ComposeService {
    image?: string;
    build?: { context: string };
    command?: string[];
    profiles?: string[];
    environment?: Record<string, string>;
    secrets?: (string | { source: string })[];
    volumes?: (string | { type: string; source: string })[];
    deploy?: { replicas?: number };
    networks?: Record<string, { ipv4_address?: string } | null>;
  }
  interface ComposeConfig {
    services: Record<string, ComposeService>;
    secrets?: Record<string, { file?: string }>;
  }

  test('docker-compose accepts compose.yaml with .env.example, without and with the tls profile', async () => {
    for (const profile of [null, 'tls']) {
      const { services } = await config(profile);
      expect(Object.keys(services).sort()).toEqual(['caddy', 'grafana', 'postgres', 'prometheus', 'service', 'worker']);
      // Only Caddy is optional: it runs with `--profile tls`.
      const optional = Object.entries(services).filter(([, service]) => service.profiles !== undefined);
      expect(optional.map(([name, service]) => [name, service.profiles])).toEqual([['caddy', ['tls']]]);
    }
  });

  test('two service replicas without their worker, one worker, one image built from this Dockerfile', async () => {
    const { services } = await config(null);
    const { service, worker } = services;
    expect(service.deploy?.replicas).toBe(2);
    expect(service.environment?.WORKER).toBe('false');
    expect(worker.command).toEqual(['node', 'dist/cli/worker.js']);
    expect(worker.image).toBe(service.image);
    expect(service.build?.context).toBe(ROOT);
    expect(service.environment?.DATABASE_URL_FILE).toBe('/run/secrets/database_url');
    expect(worker.environment?.DATABASE_URL_FILE).toBe(service.environment?.DATABASE_URL_FILE);
    // Caddy's fixed address is the one proxy the replicas trust, and the only address it reaches them from.
    const caddyAddress = /^CADDY_ADDRESS=(.*)$/m.exec(readFileSync(path.join(ROOT, '.env.example'), 'utf8'))?.[1];
    expect(service.environment?.TRUST_PROXY).toBe(caddyAddress);
    expect(services.caddy.networks).toEqual({ edge: { ipv4_address: caddyAddress } });
    expect(Object.keys(service.networks ?? {}).sort()).toEqual(['default', 'edge']);
  });

  test('every file compose mounts exists in the repository', async () => {
    const { services, secrets } = await config('tls');
    const sources = Object.values(services).flatMap((service) =>
      (service.volumes ?? []).map((volume) => (typeof volume === 'string' ? volume.split(':')[0] : volume.source)),
    );
    const files = sources.filter((source) => source.startsWith('/'));
    expect(files.map((file) => path.relative(ROOT, file)).sort()).toEqual([
      'deploy/caddy/Caddyfile',
      'deploy/grafana/dashboards',
      'deploy/grafana/provisioning',
      'deploy/prometheus/prometheus.yml',
      'deploy/prometheus/rules',
    ]);
    for (const file of files) expect({ file, exists: existsSync(file) }).toEqual({ file, exists: true });
    for (const file of [
      'deploy/grafana/provisioning/datasources/prometheus.yml',
      'deploy/grafana/provisioning/dashboards/dashboards.yml',
    ])
      expect({ file, exists: existsSync(path.join(ROOT, file)) }).toEqual({ file, exists: true });
    for (const [name, secret] of Object.entries(secrets ?? {}))
      expect({ name, exists: secret.file !== undefined && existsSync(secret.file) }).toEqual({ name, exists: true });
  });

  test('every secret reaches a container as a file under /run/secrets, never as a value', async () => {
    const { services, secrets } = await config('tls');
    expect(Object.keys(secrets ?? {}).sort()).toEqual([...SECRET_FILES, 'fcm_credentials'].sort());
    for (const [name, service] of Object.entries(services)) {
      const environment = service.environment ?? {};
      const mounted = (service.secrets ?? []).map((secret) => (typeof secret === 'string' ? secret : secret.source));
      const given = secretSettingNames.filter((secret) => environment[secret] !== undefined);
      expect({ name, given }).toEqual({ name, given: [] });
      for (const [variable, value] of Object.entries(environment)) {
        const file = /^\/run\/secrets\/(.+)$/.exec(String(value))?.[1];
        if (file !== undefined)
          expect({ name, variable, mounted: mounted.includes(file) }).toEqual({ name, variable, mounted: true });
      }
    }
    expect(services.service.environment?.ADMIN_TOKEN_FILE).toBe('/run/secrets/admin_token');
    expect(services.postgres.environment?.POSTGRES_PASSWORD_FILE).toBe('/run/secrets/postgres_password');
    // The providers' secrets are read only when .env names them: empty by default.
    for (const variable of ['PUSH_WEBHOOK_TOKEN_FILE', 'SMS_HTTP_HEADERS_FILE', 'TWILIO_AUTH_TOKEN_FILE'])
      expect({ variable, value: services.worker.environment?.[variable] }).toEqual({ variable, value: '' });
  });

  test("the service and the worker accept the stack's settings, their secrets read from the files", async () => {
    const { services } = await config(null);
    const secrets = path.join(dir, 'secrets');
    writeFileSync(path.join(secrets, 'admin_token'), `${ADMIN_TOKEN}\n`);
    writeFileSync(path.join(secrets, 'database_url'), 'postgres://sns:pw@postgres:5432/sns\n');
    for (const name of ['service', 'worker']) {
      // Each /run/secrets/NAME as compose mounts it: here, the file of the folder the test made.
      const environment = Object.fromEntries(
        Object.entries(services[name].environment ?? {}).map(([variable, value]) => [
          variable,
          String(value).replace(/^\/run\/secrets\//, `${secrets}/`),
        ]),
      );
      const loaded = loadConfig(environment);
      expect({ name, databaseUrl: loaded.databaseUrl }).toEqual({
        name,
        databaseUrl: 'postgres://sns:pw@postgres:5432/sns',
      });
      expect({ name, adminToken: loaded.adminToken }).toEqual({
        name,
        adminToken: name === 'service' ? ADMIN_TOKEN : null,
      });
    }
  });

  test('.env.example names every variable compose.yaml reads, and .env is not committed', () => {
    const compose = readFileSync(path.join(ROOT, 'compose.yaml'), 'utf8');
    const read = new Set([...compose.matchAll(/\$\{([A-Z0-9_]+)/g)].map((match) => match[1]));
    const example = readFileSync(path.join(ROOT, '.env.example'), 'utf8');
    const named = new Set([...example.matchAll(/^([A-Z0-9_]+)=/gm)].map((match) => match[1]));
    expect([...read].filter((name) => !named.has(name))).toEqual([]);
    expect([...named].filter((name) => !read.has(name))).toEqual([]);
    expect(readFileSync(path.join(ROOT, '.gitignore'), 'utf8').split('\n')).toContain('.env');
  });
});
