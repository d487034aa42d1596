// The audit trail page (docs/console.md#audit-trail): console actions appear
// with their account; filters by caller, operation, student, outcome and
// time, checked by the admin API's rules.
import request from 'supertest';
import { storeVariants, type TestStore } from '../support/stores';
import { Clock, hiddenField, signedIn, type ConsoleHarness, openConsoleWorld, closeConsoleWorld } from './support';

describe.each(storeVariants())('the audit trail page on $name', (variant) => {
  let ctx: TestStore;
  let clock: Clock;
  let harness: ConsoleHarness;

  beforeEach(async () => {
    ({ ctx, clock, harness } = await openConsoleWorld(variant));
  });
  afterEach(() => closeConsoleWorld(ctx, harness));

  it('shows console actions with their account, and filters by caller, operation, student, outcome and time', async () => {
    const olga = await signedIn(harness.app, 'olga');
    clock.advance(60_000);
    await olga.agent.get('/console/students/1003');
    // A failed sign-in of victor's.
    const agent = request.agent(harness.app);
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
    const olga = await signedIn(harness.app, 'olga');
    const res = await olga.agent.get('/console/audit?from=yesterday&outcome=maybe');
    expect(res.status).toBe(400);
    expect(res.text).toContain('class="error-summary"');
    expect(res.text).toContain('href="#from"');
    expect(res.text).toContain('href="#outcome"');
    expect(res.text).not.toContain('entries, newest first');
  });
});
