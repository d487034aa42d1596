// The console's state on two nodes of one store (docs/console.md#importing-a-roster,
// docs/console.md#signing-in): an import started through one node is
// followed, applied and its report read through the other, run by a third
// process's background slot (the delivery worker's); and the sign-in
// throttle counts the failures of both nodes together.
import request from 'supertest';
import pino from 'pino';
import { startImportRunner, type ImportRunner } from '../../src/console/import-runner';
import type { OpenedStore } from '../../src/store';
import { storeVariants, type TestStore } from '../support/stores';
import {
  Clock,
  closeConsoleWorld,
  consoleApp,
  hiddenField,
  openConsoleWorld,
  PASSWORD,
  signedIn,
  type ConsoleHarness,
} from './support';

const ROSTER = [
  'id,school,fullName',
  '9001,https://school-a.example,Lina Haddad',
  's2,https://school-a.example,Omar Khalil',
].join('\n');

const uploadIdOf = (location: string): string => /^\/console\/import\/([A-Za-z0-9_-]{24})$/.exec(location)?.[1] ?? '';

describe.each(storeVariants())('the console on two nodes of one $name store', (variant) => {
  let ctx: TestStore;
  let clock: Clock;
  let first: ConsoleHarness;
  let second: ConsoleHarness;
  let secondStore: OpenedStore;
  let worker: ImportRunner | null = null;

  beforeEach(async () => {
    ({ ctx, clock, harness: first } = await openConsoleWorld(variant, { accounts: { olga: 'operator' } }));
    secondStore = await ctx.reopen({ now: clock.now });
    second = consoleApp(secondStore, clock);
  });
  afterEach(async () => {
    await worker?.stop(10_000);
    worker = null;
    await second.bcrypt.close();
    await closeConsoleWorld(ctx, first);
  });

  /** GETs `path` on a node with the session's cookie until `done` says so. */
  const follow = async (app: ConsoleHarness['app'], cookie: string, path: string, done: (text: string) => boolean) => {
    for (let round = 0; round < 500; round++) {
      const page = await request(app).get(path).set('Cookie', cookie);
      expect(page.status).toBe(200);
      if (done(page.text)) return page.text;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error(`${path} never showed the end of its job`);
  };

  /** Uploads `roster` as students through the first node, as its form sends it. */
  const uploadStudents = async (browser: Awaited<ReturnType<typeof signedIn>>, roster: Buffer, name: string) => {
    const form = await browser.agent.get('/console/import');
    return browser.agent
      .post('/console/import')
      .field('csrf', hiddenField(form.text))
      .field('collection', 'students')
      .attach('file', roster, name);
  };

  /** The worker: an import slot on a store of its own on the same database, as `npm run worker` runs it. */
  const startWorker = async (maxRows: number) => {
    const workerStore = await ctx.reopen({ now: clock.now });
    worker = startImportRunner({
      stores: { console: workerStore.console, import: workerStore.dataSet, access: workerStore.access },
      limits: { maxRows },
      logger: pino({ level: 'silent' }),
      now: clock.now,
      pollMs: 20,
    });
  };

  it('starts a job through one node, follows it and reads its report through the other, run by a third', async () => {
    const olga = await signedIn(first.app, 'olga');
    const uploaded = await uploadStudents(olga, Buffer.from(ROSTER), 'pupils.csv');
    expect(uploaded.status).toBe(303);
    const id = uploadIdOf(uploaded.headers.location);
    const path = `/console/import/${id}`;

    // No slot has run yet: the other node shows the job waiting, and refreshing.
    const waiting = await request(second.app).get(path).set('Cookie', olga.sessionCookie);
    expect(waiting.status).toBe(200);
    expect(waiting.text).toContain('Waiting for a delivery worker to take the job');
    expect(waiting.text).toContain('http-equiv="refresh"');
    // One job at a time on every node: the other node refuses a second upload meanwhile.
    const other = await request(second.app)
      .post('/console/import')
      .set('Cookie', olga.sessionCookie)
      .field('csrf', hiddenField(waiting.text))
      .attach('file', Buffer.from(ROSTER), 'again.csv');
    expect(other.status).toBe(409);

    await startWorker(1000);
    const checked = await follow(second.app, olga.sessionCookie, path, (text) =>
      text.includes('Nothing has been written yet.'),
    );
    expect(checked).toMatch(/<td data-label="Added" class="number">2<\/td>/);
    expect(checked).not.toContain('http-equiv="refresh"');

    // Applied through the second node, followed through the first.
    const applied = await request(second.app)
      .post(`${path}/apply`)
      .set('Cookie', olga.sessionCookie)
      .type('form')
      .send({ csrf: hiddenField(checked) });
    expect(applied.status).toBe(303);
    await follow(first.app, olga.sessionCookie, path, (text) => text.includes('The file has been written:'));
    expect((await ctx.store.admin.getRecord('students', '9001'))?.fullName).toBe('Lina Haddad');

    const report = await request(second.app).get(`${path}/apply.txt`).set('Cookie', olga.sessionCookie);
    expect(report.status).toBe(200);
    expect(report.text).toContain('students: 2 inserted, 0 updated, 0 rejected');
    const json = await request(first.app).get(`${path}/check.json`).set('Cookie', olga.sessionCookie);
    expect(JSON.parse(json.text)).toMatchObject({ account: 'olga', kind: 'check' });
    // The end of each job is in the audit trail, written by the worker.
    const ends = await ctx.store.admin.listAuditEntries({ limit: 50, offset: 0, operation: 'import-apply' });
    expect(ends.items.map((e) => e.reason)).toContain('pupils.csv: added 2, changed 0, refused 0');
  });

  it('keeps a file larger than a chunk in chunks, and checks it whole on the worker', async () => {
    const rows = Array.from({ length: 45_000 }, (_, i) => `p${i},https://school-a.example,Pupil Number ${i}`);
    const roster = Buffer.from(['id,school,fullName', ...rows].join('\n'));
    expect(roster.length).toBeGreaterThan(2 * 1024 * 1024);
    const olga = await signedIn(first.app, 'olga');
    const uploaded = await uploadStudents(olga, roster, 'many.csv');
    expect(uploaded.status).toBe(303);
    const id = uploadIdOf(uploaded.headers.location);
    const sizes = await ctx.query<{ seq: number; size: number }>(
      'select seq, length(data) as size from console_upload_chunks where upload_id = ? order by seq',
      [id],
    );
    expect(sizes.map((row) => [Number(row.seq), Number(row.size)])).toEqual([
      [0, 1024 * 1024],
      [1, 1024 * 1024],
      [2, roster.length - 2 * 1024 * 1024],
    ]);
    await startWorker(100_000);
    const checked = await follow(second.app, olga.sessionCookie, `/console/import/${id}`, (text) =>
      text.includes('Nothing has been written yet.'),
    );
    expect(checked).toMatch(/<td data-label="Added" class="number">45,000<\/td>/);
  });

  it("deletes an upload past its hour from a worker's slot, with its chunks, though nobody uploads again", async () => {
    const olga = await signedIn(first.app, 'olga');
    const id = uploadIdOf((await uploadStudents(olga, Buffer.from(ROSTER), 'pupils.csv')).headers.location);
    await startWorker(1000);
    await follow(second.app, olga.sessionCookie, `/console/import/${id}`, (text) =>
      text.includes('Nothing has been written yet.'),
    );
    expect(await worker?.prune()).toBe(0);
    clock.advance(61 * 60_000);
    expect(await worker?.prune()).toBe(1);
    expect(await ctx.query('select seq from console_upload_chunks')).toEqual([]);
    expect(await ctx.query('select id from console_import_jobs')).toEqual([]);
    // The session ended meanwhile: signed in again, the page is gone.
    const again = await signedIn(second.app, 'olga');
    expect((await again.agent.get(`/console/import/${id}`)).status).toBe(404);
  });

  it('counts the failed sign-ins of both nodes together', async () => {
    const attempt = async (app: ConsoleHarness['app'], password: string) => {
      const agent = request.agent(app);
      const csrf = hiddenField((await agent.get('/console/sign-in')).text);
      return agent.post('/console/sign-in').type('form').send({ csrf, name: 'olga', password });
    };
    for (let i = 0; i < 3; i++) expect((await attempt(first.app, `wrong-${i}-password`)).status).toBe(401);
    for (let i = 3; i < 5; i++) expect((await attempt(second.app, `wrong-${i}-password`)).status).toBe(401);
    expect((await attempt(first.app, PASSWORD)).status).toBe(429);
    expect((await attempt(second.app, PASSWORD)).status).toBe(429);
    clock.advance(61_000);
    expect((await attempt(second.app, PASSWORD)).status).toBe(303);
  });
});
