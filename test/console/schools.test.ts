// Browsing schools and a school's students (docs/console.md#schools).
import { storeVariants } from '../support/stores';
import { useConsoleWorld, signedIn } from './support';

describe.each(storeVariants())('schools in the console on $name', (variant) => {
  const world = useConsoleWorld(variant, { accounts: { victor: 'viewer' } });

  it("lists the schools, then a school's students escaped, and records the read", async () => {
    const victor = await signedIn(world.harness.app, 'victor');
    const schools = await victor.agent.get('/console/schools');
    expect(schools.status).toBe(200);
    expect(schools.text).toContain('School A');
    expect(schools.text).toContain('/console/schools/students?school=https%3A%2F%2Fschool-a.example');
    const students = await victor.agent.get('/console/schools/students?school=https%3A%2F%2Fschool-a.example');
    expect(students.status).toBe(200);
    expect(students.text).toContain('O&#39;Brien &amp; &lt;Sons&gt; &quot;Q&quot;');
    expect(students.text).not.toContain('Maya Haddad');
    expect((await victor.agent.get('/console/schools/students?school=https%3A%2F%2Fnowhere.example')).status).toBe(404);
    const entries = (await world.ctx.store.admin.listAuditEntries({ limit: 10, offset: 0, operation: 'school' })).items;
    expect(entries.map((e) => [e.user, e.subjectKind])).toEqual([['victor', 'school']]);
  });
});
