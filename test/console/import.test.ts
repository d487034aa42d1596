// Importing a roster in the console (docs/console.md#import): the importer's
// dry run on an upload, then its apply from the kept file, as jobs; operators
// only, CSRF in the multipart body, audited, reports downloadable.
import { FIXTURES } from '../support/fixtures';
import { storeVariants } from '../support/stores';
import { hiddenField, signedIn, type Browser, useConsoleWorld } from './support';

const ROSTER = [
  'id,school,fullName,classId,active',
  '1001,https://school-a.example,Ahmad Ali Nassar,7A,1',
  '9001,https://school-a.example,Lina Haddad,5B,1',
  '2002,https://nowhere.example,Omar Khalil,5B,1',
  '2003,https://school-a.example,Sara Odeh,5B,7',
].join('\n');

/** The upload id of the page a redirect leads to. */
const uploadIdOf = (location: string): string => /^\/console\/import\/([A-Za-z0-9_-]+)$/.exec(location)?.[1] ?? '';

describe.each(storeVariants())('importing a roster in the console on $name', (variant) => {
  const world = useConsoleWorld(variant);

  const upload = async (
    browser: Browser,
    csrf: string | null,
    name = 'pupils-2026.csv',
    text = ROSTER,
    collection = '',
  ) => {
    const form = await browser.agent.get('/console/import');
    let post = browser.agent.post('/console/import');
    if (csrf !== null) post = post.field('csrf', csrf === 'page' ? hiddenField(form.text) : csrf);
    return post.field('collection', collection).attach('file', Buffer.from(text), name);
  };

  const studentIds = async () => (await world.ctx.store.dataSet.readDataSet()).students.map((s) => s.id).sort();

  it('checks an upload without writing, shows the refused rows, applies it, and keeps the reports', async () => {
    const olga = await signedIn(world.harness.app, 'olga');
    const before = await studentIds();
    const checked = await upload(olga, 'page');
    expect(checked.status).toBe(303);
    const id = uploadIdOf(checked.headers.location);
    expect(id).toMatch(/^[A-Za-z0-9_-]{24}$/);
    await world.harness.imports.settled(id);

    const report = await olga.agent.get(`/console/import/${id}`);
    expect(report.status).toBe(200);
    expect(report.text).toContain('Nothing has been written yet.');
    // students: 2 rows accepted, 1 would be added (9001), 1 would change (1001), 2 refused.
    expect(report.text).toMatch(
      /<td data-label="Collection">students<\/td>\s*<td data-label="Rows accepted" class="number">2<\/td>\s*<td data-label="Added" class="number">1<\/td>\s*<td data-label="Changed" class="number">1<\/td>\s*<td data-label="Refused" class="number">2<\/td>/,
    );
    expect(report.text).toMatch(
      /<td data-label="Line" class="number">4<\/td>\s*<td data-label="Collection">students<\/td>\s*<td data-label="Field"><bdi class="code" dir="ltr">school<\/bdi><\/td>/,
    );
    expect(report.text).toMatch(
      /<td data-label="Line" class="number">5<\/td>\s*<td data-label="Collection">students<\/td>\s*<td data-label="Field"><bdi class="code" dir="ltr">active<\/bdi><\/td>/,
    );
    expect(await studentIds()).toEqual(before);

    const applied = await olga.agent
      .post(`/console/import/${id}/apply`)
      .type('form')
      .send({ csrf: hiddenField(report.text) });
    expect(applied.status).toBe(303);
    await world.harness.imports.settled(id);
    const done = await olga.agent.get(`/console/import/${id}`);
    expect(done.text).toContain('The file has been written:');
    expect(await studentIds()).toEqual([...before, '9001'].sort());
    expect((await world.ctx.store.admin.getRecord('students', '1001'))?.fullName).toBe('Ahmad Ali Nassar');

    // Applied once: a second apply starts nothing.
    await olga.agent
      .post(`/console/import/${id}/apply`)
      .type('form')
      .send({ csrf: hiddenField(report.text) });
    await world.harness.imports.settled(id);

    const text = await olga.agent.get(`/console/import/${id}/apply.txt`);
    expect(text.status).toBe(200);
    expect(text.headers['content-disposition']).toBe('attachment; filename="pupils-2026-import.txt"');
    expect(text.text).toContain('students: 1 inserted, 1 updated, 2 rejected');
    expect(text.text).toContain('line 4 (students): school names a school');
    expect(text.text).not.toContain('sns-console-import');
    const json = await olga.agent.get(`/console/import/${id}/check.json`);
    expect(json.status).toBe(200);
    const parsed = JSON.parse(json.text) as { account: string; files: { collections: { wouldInsert: number }[] }[] };
    expect(parsed.account).toBe('olga');
    expect(parsed.files[0]?.collections[0]?.wouldInsert).toBe(1);

    const entries = (await world.ctx.store.admin.listAuditEntries({ limit: 20, offset: 0 })).items.filter(
      (e) => e.operation.startsWith('import-') && e.operation !== 'import-report',
    );
    expect(entries.map((e) => [e.operation, e.user, e.outcome]).sort()).toEqual([
      ['import-apply', 'olga', 'allowed'],
      ['import-apply', 'olga', 'allowed'],
      ['import-apply', 'olga', 'refused'],
      ['import-check', 'olga', 'allowed'],
      ['import-check', 'olga', 'allowed'],
    ]);
    expect(entries.map((e) => e.reason)).toContain('pupils-2026.csv: added 1, changed 1, refused 2');
    const reads = await world.ctx.store.admin.listAuditEntries({ limit: 20, offset: 0, operation: 'import-report' });
    expect(reads.items.map((e) => [e.user, e.reason]).sort()).toEqual([
      ['olga', 'apply.txt'],
      ['olga', 'check.json'],
    ]);
  });

  it("answers a viewer's upload with 403 and imports nothing", async () => {
    const victor = await signedIn(world.harness.app, 'victor');
    const before = await studentIds();
    expect((await victor.agent.get('/console/')).text).not.toContain('href="/console/import"');
    const res = await upload(victor, await victor.csrf());
    expect(res.status).toBe(403);
    const entries = (await world.ctx.store.admin.listAuditEntries({ limit: 5, offset: 0, user: 'victor' })).items;
    // The form's GET and the upload's POST, both refused.
    expect(
      entries.filter((e) => e.operation === 'import' && e.outcome === 'refused' && e.reason === 'role'),
    ).toHaveLength(2);
    expect(entries.some((e) => e.operation === 'import-check')).toBe(false);
    expect(await studentIds()).toEqual(before);
  });

  it('refuses an upload without its CSRF token or with another, and keeps nothing', async () => {
    const olga = await signedIn(world.harness.app, 'olga');
    const before = await studentIds();
    expect((await upload(olga, null)).status).toBe(403);
    expect((await upload(olga, 'not-the-token')).status).toBe(403);
    const entries = (await world.ctx.store.admin.listAuditEntries({ limit: 5, offset: 0, user: 'olga' })).items;
    // The clock stands still: entries of the same time come in any order.
    expect(entries.filter((e) => e.operation === 'import' && e.reason === 'csrf')).toHaveLength(2);
    expect(entries.some((e) => e.operation === 'import-check')).toBe(false);
    expect(await studentIds()).toEqual(before);
    // The right token after the file: the file was not kept as it arrived, so the form is refused.
    const form = await olga.agent.get('/console/import');
    const late = await olga.agent
      .post('/console/import')
      .attach('file', Buffer.from(ROSTER), 'pupils-2026.csv')
      .field('csrf', hiddenField(form.text));
    expect(late.status).toBe(403);
    expect(await world.ctx.query('select upload_id from console_upload_chunks')).toEqual([]);
    expect(await world.ctx.query('select id from console_uploads')).toEqual([]);
  });

  it('refuses a file that is neither CSV nor JSON, and one it cannot place', async () => {
    const olga = await signedIn(world.harness.app, 'olga');
    const named = await upload(olga, 'page', 'roster.xlsx');
    expect(named.status).toBe(400);
    expect(named.text).toContain('The file must be a .csv or .json file.');
    const unplaced = await upload(olga, 'page', 'list.csv', 'id\n1\n');
    expect(unplaced.status).toBe(303);
    const id = uploadIdOf(unplaced.headers.location);
    await world.harness.imports.settled(id);
    const page = await olga.agent.get(`/console/import/${id}`);
    expect(page.text).toContain('cannot tell which collection this CSV file holds');
    expect(page.text).not.toContain('>Apply<');
  });

  it('runs a large file as a job, showing its progress, and completes it', async () => {
    const olga = await signedIn(world.harness.app, 'olga');
    const rows = Array.from({ length: 20_000 }, (_, i) => `s${i},https://school-a.example,Student ${i}`);
    const checked = await upload(olga, 'page', 'students.csv', ['id,school,fullName', ...rows].join('\n'));
    expect(checked.status).toBe(303);
    const id = uploadIdOf(checked.headers.location);
    const running = await olga.agent.get(`/console/import/${id}`);
    // Either still running (a refreshing page with its progress) or done already.
    if (running.text.includes('http-equiv="refresh"')) expect(running.text).toMatch(/of 20,000 rows|of 0 rows/);
    await world.harness.imports.settled(id);
    const report = await olga.agent.get(`/console/import/${id}`);
    expect(report.text).not.toContain('http-equiv="refresh"');
    await olga.agent
      .post(`/console/import/${id}/apply`)
      .type('form')
      .send({ csrf: hiddenField(report.text) });
    await world.harness.imports.settled(id);
    expect((await world.ctx.store.dataSet.readDataSet()).students.length).toBe(
      (FIXTURES.students?.length ?? 0) + 20_000,
    );
  });

  it('reads a JSON document by its own collections, whatever the select says', async () => {
    const olga = await signedIn(world.harness.app, 'olga');
    const json = JSON.stringify({ schools: [{ baseUrl: 'https://new-school.example', name: 'New School' }] });
    const checked = await upload(olga, 'page', 'roster.json', json, 'students');
    const id = uploadIdOf(checked.headers.location);
    await world.harness.imports.settled(id);
    const page = await olga.agent.get(`/console/import/${id}`);
    expect(page.text).toMatch(
      /<td data-label="Collection">schools<\/td>\s*<td data-label="Rows accepted" class="number">1<\/td>\s*<td data-label="Added" class="number">1<\/td>/,
    );
    expect(await world.ctx.store.admin.getRecord('schools', 'https://new-school.example')).toBeNull();
  });

  it('answers 404 for an upload id it does not know', async () => {
    const olga = await signedIn(world.harness.app, 'olga');
    const res = await olga.agent.get('/console/import/AAAAAAAAAAAAAAAAAAAAAAAA');
    expect(res.status).toBe(404);
    expect(res.text).toContain('Upload the file again.');
  });
});
