// Editing a student in the console (docs/console.md#editing-records): the
// admin API's rules and messages, operators only, audited; deactivation.
import { storeVariants } from '../support/stores';
import { signedIn, useConsoleWorld } from './support';

describe.each(storeVariants())('editing a student on $name', (variant) => {
  const world = useConsoleWorld(variant);

  it('saves a new name and class, clears the device, deactivates, and records it', async () => {
    const olga = await signedIn(world.harness.app, 'olga');
    const form = await olga.agent.get('/console/students/1001/edit');
    expect(form.status).toBe(200);
    expect(form.text).toContain('<label for="full-name">Full name</label>');
    const saved = await olga.agent
      .post('/console/students/1001/edit')
      .type('form')
      .send({ csrf: await olga.csrf(), fullName: 'Ahmad Ali Nassar', classId: '8B', deviceId: '', active: '0' });
    expect(saved.status).toBe(303);
    expect((await olga.agent.get(saved.headers.location)).text).toContain('The student was saved.');
    const student = await world.ctx.store.admin.getRecord('students', '1001');
    expect(student).toMatchObject({ fullName: 'Ahmad Ali Nassar', classId: '8B', deviceId: null, active: '0' });
    expect(
      (await world.ctx.store.console.searchStudents('nassar', { limit: 5, offset: 0 })).items.map((s) => s.id),
    ).toEqual(['1001']);
    const entries = (await world.ctx.store.admin.listAuditEntries({ limit: 10, offset: 0, operation: 'student-edit' }))
      .items;
    expect(entries.map((e) => [e.user, e.subject, e.outcome])).toEqual([['olga', '1001', 'allowed']]);
    // The audit trail keeps what changed, old -> new, and its page shows it.
    expect(entries[0]?.reason).toBe(
      'fullName: Ahmad Ali -> Ahmad Ali Nassar; classId: 7A -> 8B; deviceId: dev-1001 -> –; active: 1 -> 0',
    );
    const trail = await olga.agent.get('/console/audit?operation=student-edit');
    expect(trail.text).toContain('classId: 7A -&gt; 8B');
  });

  it("refuses what the admin API refuses, with the collection's message, and changes nothing", async () => {
    const olga = await signedIn(world.harness.app, 'olga');
    const res = await olga.agent
      .post('/console/students/1001/edit')
      .type('form')
      .send({ csrf: await olga.csrf(), fullName: '', classId: 'x'.repeat(65), active: '2' });
    expect(res.status).toBe(400);
    expect(res.text).toContain('class="error-summary"');
    expect(res.text).toContain('href="#full-name"');
    expect(res.text).toContain('href="#class-id"');
    expect(res.text).toContain('href="#active"');
    expect(await world.ctx.store.admin.getRecord('students', '1001')).toMatchObject({
      fullName: 'Ahmad Ali',
      classId: '7A',
    });
  });

  it('says each refusal in Arabic on an Arabic page, an English text it has no words for kept whole', async () => {
    const olga = await signedIn(world.harness.app, 'olga');
    const res = await olga.agent
      .post('/console/students/1001/edit')
      .set('Cookie', 'sns_console_lang=ar')
      .type('form')
      .send({ csrf: await olga.csrf(), fullName: '', classId: 'x'.repeat(65), active: '2' });
    expect(res.status).toBe(400);
    const problems = /<ul>([^]*?)<\/ul>/.exec(res.text.slice(res.text.indexOf('error-summary')))?.[1] ?? '';
    expect(problems).toContain('مطلوب.');
    expect(problems).toContain('يجب ألا يزيد على 64 حرفًا.');
    // Every text in it is Arabic, or English between an isolate and its pop (its full stop inside).
    for (const text of problems.match(/>([^<]+)</g) ?? []) expect(text).not.toMatch(/[A-Za-z][^\u2069]*\.<$/);
  });

  // Every write checks the student's links (docs/design.md#storage): its school must be stored, its device need not be.
  it('saves a device id that is not registered yet, as the admin API does', async () => {
    const olga = await signedIn(world.harness.app, 'olga');
    const saved = await olga.agent
      .post('/console/students/1001/edit')
      .type('form')
      .send({ csrf: await olga.csrf(), fullName: 'Ahmad Ali', classId: '7A', deviceId: 'dev-not-yet', active: '1' });
    expect(saved.status).toBe(303);
    expect(await world.ctx.store.admin.getRecord('students', '1001')).toMatchObject({
      deviceId: 'dev-not-yet',
      school: 'https://school-a.example',
    });
  });

  it("answers a viewer's edit with 403 and changes nothing", async () => {
    const victor = await signedIn(world.harness.app, 'victor');
    expect((await victor.agent.get('/console/students/1001')).text).not.toContain('/edit');
    const res = await victor.agent
      .post('/console/students/1001/edit')
      .type('form')
      .send({ csrf: await victor.csrf(), fullName: 'Hacked' });
    expect(res.status).toBe(403);
    expect((await world.ctx.store.admin.getRecord('students', '1001'))?.fullName).toBe('Ahmad Ali');
  });
});
