// Several FCM projects at once (docs/delivery.md#fcm-credentials): FCM_PROJECTS
// checked at start, each entry's problem named; a school names its project
// (refused at the write when no such project is configured); the worker sends
// each push through its school's project, with that project's own token,
// and never through another; a school naming none goes through the default;
// one naming a project removed since fails for good, its token never shown.
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Registry } from 'prom-client';
import { DEFAULT_FCM_PROJECT, isKnownFcmProject, setKnownFcmProjects } from '../../src/domain/fcm-project';
import type { PushProvider } from '../../src/delivery';
import { fcm as fcmDescriptor, routeByProject, type FcmSettings } from '../../src/delivery/push/fcm/fcm-provider';
import { MAX_FCM_PROJECTS, parseFcmProjects } from '../../src/delivery/push/fcm/fcm-projects';
import { SchoolProjects } from '../../src/delivery/school-projects';
import { createDeliveryMetrics } from '../../src/metrics/delivery-metrics';
import { storeVariants, type TestStore } from '../support/stores';
import { startFakeFcm, type FakeFcm } from './support/fake-fcm';
import { pushWorker } from './support/harness';

const DEFAULTS = { baseUrl: 'https://fcm.googleapis.com', http2Sessions: 4 };

// The descriptor's settings from its variables, as the configuration reads them.
function settingsOf(
  variables: { FCM_CREDENTIALS?: string; FCM_PROJECT_ID?: string; FCM_BASE_URL?: string; FCM_PROJECTS?: string },
  problems: string[],
): FcmSettings | null {
  return fcmDescriptor.settings(
    {
      FCM_CREDENTIALS: variables.FCM_CREDENTIALS,
      FCM_PROJECT_ID: variables.FCM_PROJECT_ID,
      FCM_BASE_URL: variables.FCM_BASE_URL ?? DEFAULTS.baseUrl,
      FCM_TOKEN_URL: undefined,
      FCM_HTTP2_SESSIONS: DEFAULTS.http2Sessions,
      FCM_PROJECTS: variables.FCM_PROJECTS,
    },
    problems,
    'PUSH_PROVIDER=fcm',
  );
}

// Each fake's key file in a folder of its own (they share a file name).
function keyFileOf(fake: FakeFcm, dir: string, name: string): string {
  const folder = path.join(dir, name);
  mkdirSync(folder, { recursive: true });
  return fake.writeKeyFile(folder);
}

afterEach(() => setKnownFcmProjects([]));

describe('FCM_PROJECTS', () => {
  let dir: string;
  let brandA: FakeFcm;
  let keyA: string;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'sns-fcm-projects-'));
    brandA = await startFakeFcm({ projectId: 'brand-a-project' });
    keyA = keyFileOf(brandA, dir, 'a');
  });
  afterAll(async () => {
    await brandA.server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reads each entry, its project id from its key file, the defaults where it says nothing', () => {
    const problems: string[] = [];
    const projects = parseFcmProjects(
      JSON.stringify([
        { name: 'brand-a', credentials: keyA, maxInFlight: 20 },
        { name: 'brand_b', projectId: 'b-project', baseUrl: 'http://127.0.0.1:9', http2Sessions: 2 },
      ]),
      DEFAULTS,
      problems,
    );
    expect(problems).toEqual([]);
    expect(projects).toEqual([
      {
        name: 'brand-a',
        credentials: { kind: 'file', json: expect.objectContaining({ project_id: 'brand-a-project' }) },
        projectId: 'brand-a-project',
        baseUrl: DEFAULTS.baseUrl,
        tokenUrl: brandA.account.tokenUri,
        http2Sessions: 4,
        maxInFlight: 20,
      },
      {
        name: 'brand_b',
        credentials: { kind: 'application_default' },
        projectId: 'b-project',
        baseUrl: 'http://127.0.0.1:9',
        tokenUrl: null,
        http2Sessions: 2,
        maxInFlight: null,
      },
    ]);
  });

  it.each([
    ['not JSON', '[{', ['FCM_PROJECTS: is not JSON (expected a list of {"name", "projectId", "credentials", …})']],
    ['not a list', '{"name":"a"}', ['FCM_PROJECTS: is not a JSON list']],
    [
      'the same name twice',
      '[{"name":"a","projectId":"p"},{"name":"a","projectId":"q"}]',
      ['FCM_PROJECTS entry 2 ("a"): the name is used by an earlier entry'],
    ],
    [
      'the default name',
      '[{"name":"default","projectId":"p"}]',
      ['FCM_PROJECTS entry 1 ("default"): name "default" is FCM_PROJECT_ID\'s project.'],
    ],
    [
      'a name unfit for a label',
      '[{"name":"Brand A","projectId":"p"}]',
      ['FCM_PROJECTS entry 1 ("Brand A"): name must be 1-48 of a-z, 0-9, - and _, starting with a letter or digit.'],
    ],
    [
      'an unknown field',
      '[{"name":"a","projectId":"p","credentail":"/x"}]',
      ['FCM_PROJECTS entry 1 ("a"): Unrecognized key: "credentail"'],
    ],
    [
      'no credentials and no project id',
      '[{"name":"a"}]',
      ['FCM_PROJECTS entry 1 ("a"): projectId: required with Application Default Credentials (no credentials)'],
    ],
    [
      'an unreadable key file',
      '[{"name":"a","credentials":"/nonexistent/key.json"}]',
      ['FCM_PROJECTS entry 1 ("a"): cannot read /nonexistent/key.json (ENOENT)'],
    ],
    [
      'a bad limit',
      '[{"name":"a","projectId":"p","maxInFlight":0}]',
      ['FCM_PROJECTS entry 1 ("a"): maxInFlight must be a whole number from 1 to 10000.'],
    ],
  ])('refuses %s, naming the entry', (_, text, expected) => {
    const problems: string[] = [];
    expect(parseFcmProjects(text, DEFAULTS, problems)).toBeNull();
    expect(problems).toEqual(expected);
  });

  it('refuses a key file that is not one, naming the entry and never the key', () => {
    const bad = path.join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ type: 'service_account', client_email: 'x@y', private_key: 'secret-text' }));
    const problems: string[] = [];
    expect(parseFcmProjects(JSON.stringify([{ name: 'a', credentials: bad }]), DEFAULTS, problems)).toBeNull();
    expect(problems).toEqual([`FCM_PROJECTS entry 1 ("a"): ${bad} has a private_key that is not a PEM key`]);
    expect(problems.join()).not.toContain('secret-text');
  });

  it(`refuses more than ${MAX_FCM_PROJECTS} projects`, () => {
    const many = Array.from({ length: MAX_FCM_PROJECTS + 1 }, (_, i) => ({ name: `p${i}`, projectId: 'p' }));
    const problems: string[] = [];
    expect(parseFcmProjects(JSON.stringify(many), DEFAULTS, problems)).toBeNull();
    expect(problems).toEqual([`FCM_PROJECTS: names ${MAX_FCM_PROJECTS + 1} projects; at most ${MAX_FCM_PROJECTS}`]);
  });

  it('with the default project, makes the names known that schools may name; a bad entry stops the start', () => {
    const problems: string[] = [];
    const settings = settingsOf(
      { FCM_CREDENTIALS: keyA, FCM_PROJECTS: JSON.stringify([{ name: 'brand-b', projectId: 'b' }]) },
      problems,
    );
    expect(problems).toEqual([]);
    expect(settings).toMatchObject({ name: DEFAULT_FCM_PROJECT, projectId: 'brand-a-project' });
    expect(settings?.projects.map((project) => project.name)).toEqual(['brand-b']);
    expect(isKnownFcmProject('brand-b')).toBe(true);
    expect(isKnownFcmProject('default')).toBe(true);
    expect(isKnownFcmProject('brand-c')).toBe(false);

    const refused: string[] = [];
    expect(settingsOf({ FCM_CREDENTIALS: keyA, FCM_PROJECTS: '[{"name":"x"}]' }, refused)).toBeNull();
    expect(refused).toEqual([
      'FCM_PROJECTS entry 1 ("x"): projectId: required with Application Default Credentials (no credentials)',
    ]);
  });
});

describe('routeByProject', () => {
  it("holds each project's sends in flight to its own maxInFlight, the others unbounded by it", async () => {
    const peak = new Map<string, number>();
    const now = new Map<string, number>();
    const slow = (name: string): PushProvider => ({
      name: 'fcm',
      retriesUncertain: true,
      async send() {
        now.set(name, (now.get(name) ?? 0) + 1);
        peak.set(name, Math.max(peak.get(name) ?? 0, now.get(name)!));
        await new Promise((resolve) => setTimeout(resolve, 10));
        now.set(name, now.get(name)! - 1);
        return { ok: true, providerMessageId: null };
      },
    });
    const project = (name: string, maxInFlight: number | null) => ({
      project: {
        name,
        credentials: { kind: 'application_default' as const },
        projectId: name,
        baseUrl: 'http://127.0.0.1:9',
        tokenUrl: null,
        http2Sessions: 1,
        maxInFlight,
      },
      provider: slow(name),
    });
    const router = routeByProject([project('default', null), project('brand-a', 2)]);
    expect(router.byProject).toBe(true);
    const message = (projectName: string) => ({
      id: 'x',
      token: 't',
      platform: null,
      title: 't',
      body: 'b',
      data: {},
      project: projectName,
    });
    const results = await Promise.all([
      ...Array.from({ length: 6 }, () => router.send(message('brand-a'))),
      ...Array.from({ length: 6 }, () => router.send(message('default'))),
    ]);
    expect(results.every((result) => result.ok)).toBe(true);
    expect(peak.get('brand-a')).toBe(2);
    expect(peak.get('default')).toBe(6);
  });
});

describe.each(storeVariants())('pushes through the school’s FCM project on $name', (variant) => {
  let ctx: TestStore;
  let dir: string;
  let main: FakeFcm;
  let brandA: FakeFcm;
  let brandB: FakeFcm;
  let push: PushProvider;

  beforeEach(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'sns-fcm-projects-'));
    [main, brandA, brandB] = await Promise.all([
      startFakeFcm({ projectId: 'main-project', tokenPrefix: 'main' }),
      startFakeFcm({ projectId: 'a-project', tokenPrefix: 'brand-a' }),
      startFakeFcm({ projectId: 'b-project', tokenPrefix: 'brand-b' }),
    ]);
    const problems: string[] = [];
    const settings = settingsOf(
      {
        FCM_CREDENTIALS: keyFileOf(main, dir, 'main'),
        FCM_BASE_URL: main.server.url,
        FCM_PROJECTS: JSON.stringify([
          { name: 'brand-a', credentials: keyFileOf(brandA, dir, 'a'), baseUrl: brandA.server.url, maxInFlight: 2 },
          { name: 'brand-b', credentials: keyFileOf(brandB, dir, 'b'), baseUrl: brandB.server.url },
        ]),
      },
      problems,
    );
    expect(problems).toEqual([]);
    push = fcmDescriptor.create(settings!, 2000, undefined as never);
    ctx = await variant.create();
    const school = (key: string, name: string, fcmProject?: string) => ({
      baseUrl: `https://${key}.example`,
      name,
      ...(fcmProject === undefined ? {} : { fcmProject }),
    });
    await ctx.store.dataSet.writeDataSet({
      schools: [school('plain', 'Plain'), school('one', 'One', 'brand-a'), school('two', 'Two', 'brand-b')],
      devices: ['p1', 'a1', 'a2', 'b1'].map((id) => ({ id: `dev-${id}`, token: `token-${id}`, platform: 'android' })),
      students: [
        ['p1', 'plain'],
        ['a1', 'one'],
        ['a2', 'one'],
        ['b1', 'two'],
      ].map(([id, key]) => ({
        id,
        school: `https://${key}.example`,
        fullName: `Student ${id}`,
        deviceId: `dev-${id}`,
      })),
    });
  });
  afterEach(async () => {
    await ctx.cleanup();
    await Promise.all([main, brandA, brandB].map((fake) => fake.server.close()));
    rmSync(dir, { recursive: true, force: true });
  });

  const queue = (studentId: string) =>
    ctx.store.outbox.enqueuePushNotification({
      deviceId: `dev-${studentId}`,
      studentId,
      type: 'absence',
      title: 'Absence',
      body: 'An absence was recorded.',
      data: { type: 'absence', studentId },
    });
  const moveSchool = (fcmProject: string | null) =>
    ctx.store.dataSet.writeDataSet({ schools: [{ baseUrl: 'https://one.example', name: 'One', fcmProject }] });
  const sends = (fake: FakeFcm) =>
    fake.server.requests
      .filter((request) => request.url.includes('/messages:send'))
      .map((request) => ({
        url: request.url,
        authorization: request.headers.authorization,
        token: (JSON.parse(request.body) as { message: { token: string } }).message.token,
      }))
      .sort((x, y) => x.token.localeCompare(y.token));

  it("each push reaches its school's project with that project's token, and no other", async () => {
    for (const student of ['p1', 'a1', 'a2', 'b1']) await queue(student);
    const registry = new Registry();
    const metrics = createDeliveryMetrics(registry);
    expect(await pushWorker(ctx.store.outbox, push, { observer: metrics }).drain()).toBe(4);

    expect(sends(brandA)).toEqual([
      { url: '/v1/projects/a-project/messages:send', authorization: 'Bearer brand-a-1', token: 'token-a1' },
      { url: '/v1/projects/a-project/messages:send', authorization: 'Bearer brand-a-1', token: 'token-a2' },
    ]);
    expect(sends(brandB)).toEqual([
      { url: '/v1/projects/b-project/messages:send', authorization: 'Bearer brand-b-1', token: 'token-b1' },
    ]);
    // The school naming none: the default project.
    expect(sends(main)).toEqual([
      { url: '/v1/projects/main-project/messages:send', authorization: 'Bearer main-1', token: 'token-p1' },
    ]);
    // Each project's own key signed its own token request.
    for (const fake of [main, brandA, brandB]) expect(fake.tokenRequests).toHaveLength(1);
    const statuses = (await ctx.store.admin.listPushNotifications()).map((row) => row.status);
    expect(statuses).toEqual(['sent', 'sent', 'sent', 'sent']);
    // The metrics by project: the configured names only.
    const text = await registry.metrics();
    expect(text).toContain('notify_fcm_project_deliveries_total{project="brand-a",outcome="sent"} 2');
    expect(text).toContain('notify_fcm_project_deliveries_total{project="brand-b",outcome="sent"} 1');
    expect(text).toContain('notify_fcm_project_deliveries_total{project="default",outcome="sent"} 1');
    expect(text).toContain('notify_fcm_project_duration_seconds_count{project="brand-a"} 2');
  });

  it('a school moved to another project is sent through it once the short cache has passed', async () => {
    let now = 0;
    const projects = new SchoolProjects(ctx.store.outbox, () => now);
    expect((await projects.resolve(['https://one.example']))('https://one.example')).toBe('brand-a');
    await moveSchool('brand-b');
    expect((await projects.resolve(['https://one.example']))('https://one.example')).toBe('brand-a');
    now += 10_001;
    expect((await projects.resolve(['https://one.example']))('https://one.example')).toBe('brand-b');
    await moveSchool(null);
    now += 10_001;
    const projectOf = await projects.resolve(['https://one.example', 'https://unknown.example', null]);
    expect([projectOf('https://one.example'), projectOf('https://unknown.example'), projectOf(null)]).toEqual([
      'default',
      'default',
      'default',
    ]);
  });

  it('a school naming an unconfigured project is refused at the write, in the collection’s words', async () => {
    await expect(
      ctx.store.dataSet.writeDataSet({ schools: [{ baseUrl: 'https://x.example', name: 'X', fcmProject: 'brand-z' }] }),
    ).rejects.toThrow('must name an FCM project configured in FCM_PROJECTS, or default.');
    await expect(moveSchool('brand-z')).rejects.toThrow(
      'must name an FCM project configured in FCM_PROJECTS, or default.',
    );
  });

  it('a project removed since the school named it: the push fails for good, its token never shown', async () => {
    setKnownFcmProjects(['brand-a', 'brand-b', 'brand-c']);
    await moveSchool('brand-c');
    const id = await queue('a1');
    expect(await pushWorker(ctx.store.outbox, push).drain()).toBe(1);
    const row = (await ctx.store.admin.listPushNotifications()).find((message) => message.id === id)!;
    expect(row).toMatchObject({ status: 'dead', attempts: 1 });
    expect(row.lastError).toBe(
      'fcm_project_unknown: The school names the FCM project "brand-c", which is not configured (FCM_PROJECTS).',
    );
    expect(JSON.stringify(row)).not.toContain('token-a1');
    for (const fake of [main, brandA, brandB]) expect(sends(fake)).toEqual([]);
  });
});
