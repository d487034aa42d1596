// Editing a school and a device in the console (docs/console.md#editing-records):
// the collections' own rules and messages, operators only, audited; a push
// token is never shown in the form and an empty one keeps what is stored.
import { setKnownFcmProjects } from '../../src/domain/fcm-project';
import { storeVariants } from '../support/stores';
import { signedIn, useConsoleWorld } from './support';

const SCHOOL = 'https://school-a.example';
const SCHOOL_EDIT = `/console/schools/edit?school=${encodeURIComponent(SCHOOL)}`;

describe.each(storeVariants())('editing a school and a device on $name', (variant) => {
  const world = useConsoleWorld(variant);

  it("renames a school, and refuses an empty name with the collection's message", async () => {
    const olga = await signedIn(world.harness.app, 'olga');
    const list = await olga.agent.get(`/console/schools/students?school=${encodeURIComponent(SCHOOL)}`);
    expect(list.text).toContain(`href="${SCHOOL_EDIT.replace(/&/g, '&amp;')}"`);
    const form = await olga.agent.get(SCHOOL_EDIT);
    expect(form.status).toBe(200);
    expect(form.text).toContain('value="School A"');
    const refused = await olga.agent
      .post(SCHOOL_EDIT)
      .type('form')
      .send({ csrf: await olga.csrf(), name: '' });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('href="#school-name"');
    expect((await world.ctx.store.admin.getRecord('schools', SCHOOL))?.name).toBe('School A');
    const saved = await olga.agent
      .post(SCHOOL_EDIT)
      .type('form')
      .send({ csrf: await olga.csrf(), name: 'مدرسة الأمل' });
    expect(saved.status).toBe(303);
    expect((await olga.agent.get(saved.headers.location)).text).toContain('The school was saved.');
    expect((await world.ctx.store.admin.getRecord('schools', SCHOOL))?.name).toBe('مدرسة الأمل');
    const entries = (await world.ctx.store.admin.listAuditEntries({ limit: 10, offset: 0, operation: 'school-edit' }))
      .items;
    expect(entries.map((e) => [e.user, e.subject, e.outcome]).sort()).toEqual([
      ['olga', SCHOOL, 'allowed'],
      ['olga', SCHOOL, 'refused'],
    ]);
  });

  it("chooses a school's FCM project among those configured, offered only when there is a choice", async () => {
    const olga = await signedIn(world.harness.app, 'olga');
    expect((await olga.agent.get(SCHOOL_EDIT)).text).not.toContain('id="school-fcm-project"');
    setKnownFcmProjects(['brand-a', 'brand-b']);
    try {
      const form = await olga.agent.get(SCHOOL_EDIT);
      expect(form.text).toContain('id="school-fcm-project"');
      expect(form.text).toContain('The default project');
      expect(form.text).toContain('value="brand-b"');
      const arabic = await olga.agent.get(SCHOOL_EDIT).set('accept-language', 'ar');
      expect(arabic.text).toContain('المشروع الافتراضي');
      const saved = await olga.agent
        .post(SCHOOL_EDIT)
        .type('form')
        .send({ csrf: await olga.csrf(), fcmProject: 'brand-b' });
      expect(saved.status).toBe(303);
      expect(await world.ctx.store.admin.getRecord('schools', SCHOOL)).toMatchObject({ fcmProject: 'brand-b' });
      // A name not configured (a form sent by hand): the collection's message.
      const refused = await olga.agent
        .post(SCHOOL_EDIT)
        .type('form')
        .send({ csrf: await olga.csrf(), fcmProject: 'brand-z' });
      expect(refused.status).toBe(400);
      expect(refused.text).toContain('href="#school-fcm-project"');
      expect(refused.text).toContain('must name an FCM project configured in FCM_PROJECTS');
      await olga.agent
        .post(SCHOOL_EDIT)
        .type('form')
        .send({ csrf: await olga.csrf(), fcmProject: '' });
      expect(await world.ctx.store.admin.getRecord('schools', SCHOOL)).toMatchObject({ fcmProject: null });
    } finally {
      setKnownFcmProjects([]);
    }
  });

  it("sets a school's time zone and quiet hours, refuses bad ones with the collection's messages, and shows them", async () => {
    const olga = await signedIn(world.harness.app, 'olga');
    const form = await olga.agent.get(SCHOOL_EDIT);
    expect(form.text).toContain('id="school-time-zone"');
    expect(form.text).toContain('value="UTC"');
    expect(form.text).toContain('id="school-quiet-hours"');
    const refused = await olga.agent
      .post(SCHOOL_EDIT)
      .type('form')
      .send({ csrf: await olga.csrf(), timeZone: 'Mars/Olympus', quietHours: '22:00-30:00' });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('href="#school-time-zone"');
    expect(refused.text).toContain('must be an IANA time zone name');
    expect(refused.text).toContain('href="#school-quiet-hours"');
    expect(await world.ctx.store.admin.getRecord('schools', SCHOOL)).toMatchObject({
      timeZone: 'UTC',
      quietHours: null,
    });
    const saved = await olga.agent
      .post(SCHOOL_EDIT)
      .type('form')
      .send({ csrf: await olga.csrf(), timeZone: ' Asia/Riyadh ', quietHours: '21:00-06:30' });
    expect(saved.status).toBe(303);
    expect(await world.ctx.store.admin.getRecord('schools', SCHOOL)).toMatchObject({
      timeZone: 'Asia/Riyadh',
      quietHours: '21:00-06:30',
    });
    const page = await olga.agent.get(saved.headers.location);
    expect(page.text).toContain('Time zone and quiet hours');
    expect(page.text).toContain('<bdi class="code">21:00-06:30</bdi>');
    // Emptied: back on UTC, no quiet hours.
    await olga.agent
      .post(SCHOOL_EDIT)
      .type('form')
      .send({ csrf: await olga.csrf(), timeZone: '', quietHours: '' });
    expect(await world.ctx.store.admin.getRecord('schools', SCHOOL)).toMatchObject({
      timeZone: 'UTC',
      quietHours: null,
    });
  });

  it('shows when a held message becomes due on its page', async () => {
    const olga = await signedIn(world.harness.app, 'olga');
    const id = await world.ctx.store.outbox.enqueuePushNotification({
      deviceId: 'dev-1001',
      studentId: '1001',
      type: 'note',
      title: 't',
      body: 'b',
      data: {},
      dueAt: '2099-01-01T06:30:00.000Z',
    });
    const page = await olga.agent.get(`/console/messages/push/${id}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Held until');
    expect(page.text).toMatch(/id="held-until"><time datetime="2099/);
  });

  it('changes a device platform, keeps its token when left empty, replaces it when given, and never shows it', async () => {
    const olga = await signedIn(world.harness.app, 'olga');
    const student = await olga.agent.get('/console/students/1001');
    expect(student.text).toContain('href="/console/devices/dev-1001/edit?student=1001"');
    const form = await olga.agent.get('/console/devices/dev-1001/edit?student=1001');
    expect(form.status).toBe(200);
    expect(form.text).not.toContain('fcm:AAAA-1001');
    const refused = await olga.agent
      .post('/console/devices/dev-1001/edit?student=1001')
      .type('form')
      .send({ csrf: await olga.csrf(), platform: 'symbian', token: '' });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('href="#platform"');
    expect(refused.text).toContain('must be one of android, ios, web.');
    const kept = await olga.agent
      .post('/console/devices/dev-1001/edit?student=1001')
      .type('form')
      .send({ csrf: await olga.csrf(), platform: 'ios', token: '' });
    expect(kept.status).toBe(303);
    expect(kept.headers.location).toBe('/console/students/1001?saved=device');
    expect(await world.ctx.store.admin.getRecord('devices', 'dev-1001')).toMatchObject({
      platform: 'ios',
      token: 'fcm:AAAA-1001',
    });
    await olga.agent
      .post('/console/devices/dev-1001/edit?student=1001')
      .type('form')
      .send({ csrf: await olga.csrf(), platform: '', token: 'fcm:NEW-1001' });
    expect(await world.ctx.store.admin.getRecord('devices', 'dev-1001')).toMatchObject({
      platform: null,
      token: 'fcm:NEW-1001',
    });
  });

  it("answers a viewer's edits with 403 and changes nothing", async () => {
    const victor = await signedIn(world.harness.app, 'victor');
    expect((await victor.agent.get('/console/students/1001')).text).not.toContain('/console/devices/');
    const school = await victor.agent
      .post(SCHOOL_EDIT)
      .type('form')
      .send({ csrf: await victor.csrf(), name: 'Hacked' });
    expect(school.status).toBe(403);
    const device = await victor.agent
      .post('/console/devices/dev-1001/edit')
      .type('form')
      .send({ csrf: await victor.csrf(), platform: 'web', token: 'x' });
    expect(device.status).toBe(403);
    expect((await world.ctx.store.admin.getRecord('schools', SCHOOL))?.name).toBe('School A');
    expect(await world.ctx.store.admin.getRecord('devices', 'dev-1001')).toMatchObject({ platform: 'android' });
  });

  it('refuses an edit without its CSRF token', async () => {
    const olga = await signedIn(world.harness.app, 'olga');
    const res = await olga.agent.post(SCHOOL_EDIT).type('form').send({ name: 'No token' });
    expect(res.status).toBe(403);
    expect((await world.ctx.store.admin.getRecord('schools', SCHOOL))?.name).toBe('School A');
  });
});
