// Find a student and the student's page (docs/console.md#find-a-student):
// by id or any part of the name, Latin case-insensitive, Arabic with or
// without diacritics, across schools, paginated; the page escapes what the
// store holds, masks the push token, and reveals it to operators only, in
// the audit trail.
import request from 'supertest';
import { searchName, SEARCH_NAME_SQL } from '../../src/store/records/search-name';
import { FIXTURES } from '../support/fixtures';
import { storeVariants } from '../support/stores';
import { signedIn, useConsoleWorld, queuePush, completePush } from './support';

const MORE = {
  schools: [{ baseUrl: 'https://school-c.example', name: 'مدرسة النور' }],
  students: [
    { id: '3001', school: 'https://school-c.example', fullName: 'مُحَمَّد الحَسَن', deviceId: null, classId: '9A' },
    { id: '3002', school: 'https://school-c.example', fullName: 'محمـــد خالد', deviceId: null, classId: '9A' },
    { id: '3003', school: 'https://school-c.example', fullName: 'AMIRA 100%_done', deviceId: null, classId: '9B' },
    { id: '3004', school: 'https://school-c.example', fullName: 'إحمد آمنة', deviceId: null, classId: '9B' },
    { id: '3005', school: 'https://school-c.example', fullName: 'ٱحمد مصطفى', deviceId: null, classId: '9B' },
  ],
};

describe.each(storeVariants())('students in the console on $name', (variant) => {
  const world = useConsoleWorld(variant, { data: [FIXTURES, MORE] });

  const ids = async (text: string, limit = 50, offset = 0) =>
    (await world.ctx.store.console.searchStudents(text, { limit, offset })).items.map((s) => s.id);

  it('finds by id, and by any part of the name in any case, across schools', async () => {
    expect(await ids('1003')).toEqual(['1003']);
    expect((await ids('ahmad')).sort()).toEqual(['1001', '1005']);
    expect((await ids('ALI')).sort()).toEqual(['1001', '1004', '1005']);
    expect(await ids('ad al')).toEqual(expect.arrayContaining(['1001', '1005']));
    expect(await ids('amira')).toEqual(['3003']);
    expect(await ids('nobody')).toEqual([]);
    expect(await ids('   ')).toEqual([]);
  });

  it('finds Arabic names with and without diacritics and tatweel, as typed', async () => {
    expect((await ids('محمد')).sort()).toEqual(['3001', '3002']);
    expect((await ids('مُحَمَّد')).sort()).toEqual(['3001', '3002']);
    expect(await ids('الحسن')).toEqual(['3001']);
  });

  it('folds hamza and madda alefs, taa marbuta and alef maqsura, on both sides', async () => {
    // أحمد (1002), إحمد (3004), ٱحمد (3005): however it is typed, the bare spelling finds all three.
    for (const typed of ['احمد', 'أحمد', 'إحمد', 'آحمد', 'أَحْمَد'])
      expect((await ids(typed)).sort()).toEqual(['1002', '3004', '3005']);
    expect(await ids('امنه')).toEqual(['3004']);
    expect(await ids('آمنة')).toEqual(['3004']);
    expect(await ids('مصطفي')).toEqual(['3005']);
    expect(await ids('مصطفى')).toEqual(['3005']);
    expect(searchName('أإآٱةى')).toBe('ااااهي');
  });

  it('counts the students found in the plural form of each language (Intl.PluralRules)', async () => {
    const viewer = await signedIn(world.harness.app, 'victor');
    const status = async (q: string, lang: 'en' | 'ar') =>
      /<p role="status">([^<]*)<\/p>/.exec(
        (
          await viewer.agent
            .get(`/console/students?q=${encodeURIComponent(q)}`)
            .set('Cookie', `sns_console_lang=${lang}`)
        ).text,
      )?.[1];
    expect(await status('amira', 'en')).toBe('1 student found.');
    expect(await status('محمد', 'en')).toBe('2 students found.');
    expect(await status('amira', 'ar')).toBe('عُثر على طالب واحد.');
    expect(await status('محمد', 'ar')).toBe('عُثر على طالبَين.');
    expect(await status('احمد', 'ar')).toBe('عُثر على 3 طلاب.');
  });

  it('takes % and _ as themselves, not as patterns', async () => {
    expect(await ids('100%')).toEqual(['3003']);
    expect(await ids('%')).toEqual(['3003']);
    expect(await ids('_')).toEqual(['3003']);
  });

  it('pages through the matches with their total', async () => {
    const first = await world.ctx.store.console.searchStudents('a', { limit: 2, offset: 0 });
    const second = await world.ctx.store.console.searchStudents('a', { limit: 2, offset: 2 });
    expect(first.items).toHaveLength(2);
    expect(first.total).toBeGreaterThan(3);
    expect(second.items.map((s) => s.id)).not.toEqual(expect.arrayContaining(first.items.map((s) => s.id)));
  });

  it('computes the search column as the TypeScript rule does', async () => {
    const rows = await world.ctx.query<{ full_name: string; search_name: string }>(
      'select full_name, search_name from students',
    );
    expect(rows.length).toBeGreaterThan(5);
    for (const row of rows) expect(row.search_name).toBe(searchName(row.full_name));
    expect(SEARCH_NAME_SQL).toContain('lower(full_name)');
  });

  it('keeps the column current when a name is changed through the admin role', async () => {
    await world.ctx.store.admin.changeRecord('students', '1001', (current) => ({
      write: { ...current!, fullName: 'Rami Nassar' },
    }));
    expect(await ids('rami')).toEqual(['1001']);
    expect(await ids('ahmad')).toEqual(['1005']);
  });

  it('shows the search page with its label, and the student page escaped, with the token masked', async () => {
    const viewer = await signedIn(world.harness.app, 'victor');
    const search = await viewer.agent.get('/console/students?q=sons');
    expect(search.status).toBe(200);
    expect(search.text).toContain('<label for="q">Search students</label>');
    expect(search.text).toContain('O&#39;Brien &amp; &lt;Sons&gt; &quot;Q&quot;');
    const student = await viewer.agent.get('/console/students/1001');
    expect(student.status).toBe(200);
    expect(student.text).toContain('School A');
    expect(student.text).toContain('fcm:…1001');
    expect(student.text).not.toContain('fcm:AAAA-1001');
    // A viewer has no Reveal button, and a POST is refused.
    expect(student.text).not.toContain('/reveal');
    const refused = await viewer.agent
      .post('/console/students/1001/reveal')
      .type('form')
      .send({ csrf: await viewer.csrf() });
    expect(refused.status).toBe(403);
    expect(refused.text).not.toContain('fcm:AAAA-1001');
    expect((await viewer.agent.get('/console/students/nope')).status).toBe(404);
  });

  it("reveals the token to an operator, recording it in the audit trail with the account's name", async () => {
    const operator = await signedIn(world.harness.app, 'olga');
    const page = await operator.agent.get('/console/students/1001');
    expect(page.text).toContain('/console/students/1001/reveal');
    const revealed = await operator.agent
      .post('/console/students/1001/reveal')
      .type('form')
      .send({ csrf: await operator.csrf() });
    expect(revealed.status).toBe(200);
    expect(revealed.text).toContain('fcm:AAAA-1001');
    const entries = (
      await world.ctx.store.admin.listAuditEntries({ limit: 50, offset: 0, endpoint: 'console', subject: '1001' })
    ).items;
    expect(entries.map((e) => [e.operation, e.user, e.subjectKind]).sort()).toEqual([
      ['reveal-token', 'olga', 'student'],
      ['student', 'olga', 'student'],
    ]);
  });

  it('says in plain words why a notification failed', async () => {
    const id = await queuePush(world.ctx.store);
    const error = 'UNREGISTERED: token fcmAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA1234 gone';
    expect(await completePush(world.ctx.store, id, { status: 'dead', error })).toBe(true);
    const viewer = await signedIn(world.harness.app, 'victor');
    const page = await request.agent(world.harness.app).get('/console/students/1001');
    expect(page.status).toBe(303);
    const seen = await viewer.agent.get('/console/students/1001');
    expect(seen.text).toContain('The app is no longer registered on this phone');
    expect(seen.text).toContain('fcmAAA…1234');
    expect(seen.text).not.toContain('AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
  });
});
