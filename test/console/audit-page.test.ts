// The audit trail page (docs/console.md#audit-trail): console actions appear
// with their account; filters by caller, operation, student, outcome and
// time, checked by the admin API's rules.
import request from 'supertest';
import { storeVariants } from '../support/stores';
import { hiddenField, signedIn, useConsoleWorld } from './support';

describe.each(storeVariants())('the audit trail page on $name', (variant) => {
  const world = useConsoleWorld(variant);

  it('shows console actions with their account, and filters by caller, operation, student, outcome and time', async () => {
    const olga = await signedIn(world.harness.app, 'olga');
    world.clock.advance(60_000);
    await olga.agent.get('/console/students/1003');
    // A failed sign-in of victor's.
    const agent = request.agent(world.harness.app);
    const csrf = hiddenField((await agent.get('/console/sign-in')).text);
    await agent.post('/console/sign-in').type('form').send({ csrf, name: 'victor', password: 'not the one at all' });

    const all = await olga.agent.get('/console/audit');
    expect(all.status).toBe(200);
    expect(all.text).toContain('3 of 3 entries');
    const byCaller = await olga.agent.get('/console/audit?caller=victor');
    expect(byCaller.text).toContain('1 of 1 entries');
    expect(byCaller.text).toContain('(credentials)');
    const byStudent = await olga.agent.get('/console/audit?student=1003');
    expect(byStudent.text).toContain('1 of 1 entries');
    expect(byStudent.text).toContain('href="/console/students/1003"');
    expect((await olga.agent.get('/console/audit?operation=sign-in&outcome=refused')).text).toContain('1 of 1 entries');
    expect((await olga.agent.get('/console/audit?outcome=allowed')).text).toContain('2 of 2 entries');
    expect((await olga.agent.get('/console/audit?from=2026-03-02T08:01')).text).toContain('2 of 2 entries');
    expect((await olga.agent.get('/console/audit?to=2026-03-02T08:01')).text).toContain('1 of 1 entries');
    expect((await olga.agent.get('/console/audit?caller=127.0.0.1')).text).toMatch(/entries, newest first|No entries/);
  });

  it('refuses a filter the admin API would refuse, with the reason at the top, and lists nothing', async () => {
    const olga = await signedIn(world.harness.app, 'olga');
    const res = await olga.agent.get('/console/audit?from=yesterday&outcome=maybe');
    expect(res.status).toBe(400);
    expect(res.text).toContain('class="error-summary"');
    expect(res.text).toContain('href="#from"');
    expect(res.text).toContain('href="#outcome"');
    expect(res.text).not.toContain('entries, newest first');
  });

  it('pages by key, newest first, every entry once, and offers the operations in a list', async () => {
    const base = Date.parse('2026-03-01T00:00:00.000Z');
    await world.ctx.store.access.insertAuditEntries(
      Array.from({ length: 150 }, (_, i) => ({
        at: new Date(base + Math.floor(i / 3) * 1000).toISOString(),
        address: '10.0.0.1',
        user: 'basic-user',
        endpoint: 'NotificationNotes',
        operation: 'GetStudentSchool',
        subjectKind: null,
        subject: `s-${i}`,
        outcome: 'allowed' as const,
        reason: null,
        subjectLength: null,
        subjectSha256: null,
        omitted: null,
      })),
    );
    const olga = await signedIn(world.harness.app, 'olga');
    const first = await olga.agent.get('/console/audit?operation=GetStudentSchool');
    expect(first.text).toContain('<option value="GetStudentSchool" selected>GetStudentSchool</option>');
    expect(first.text).toContain('<option value="resend-dead">resend-dead</option>');
    expect(first.text).toContain('100 of 150 entries');
    const subjects = (page: string) => [...page.matchAll(/<bdi class="code">(s-\d+)<\/bdi>/g)].map((m) => m[1]);
    const older = /<a rel="next" href="([^"]+)"/.exec(first.text)?.[1]?.replace(/&amp;/g, '&') ?? '';
    const second = await olga.agent.get(older);
    expect(second.status).toBe(200);
    const seen = [...subjects(first.text), ...subjects(second.text)];
    expect(new Set(seen).size).toBe(150);
    const newer = /<a rel="prev" href="([^"]+)"/.exec(second.text)?.[1]?.replace(/&amp;/g, '&') ?? '';
    expect(subjects((await olga.agent.get(newer)).text)).toEqual(subjects(first.text));
    expect((await olga.agent.get('/console/audit?before=nonsense')).status).toBe(400);
  });
});
