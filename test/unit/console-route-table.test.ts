// The console's route table (src/console/route-table.ts): the role check
// before anything is read, a path its schema refuses as no page, a query or
// form its schema refuses as a 400 page naming the field, and the typed
// signed-in context a handler is handed (its audit entries carry the account,
// the address and the route's operation).
import express, { type Response } from 'express';
import request from 'supertest';
import { z } from 'zod';
import type { ConsoleAuditEntry } from '../../src/console/audit';
import type { ConsoleContext } from '../../src/console/context';
import { areaOf, mountRoutes, route, text, type Signed } from '../../src/console/route-table';
import { viewFor } from '../../src/console/view';
import { callOf } from '../../src/wire';

function consoleWith(routes: Parameters<typeof mountRoutes>[2]) {
  const audited: ConsoleAuditEntry[] = [];
  const handled: Signed[] = [];
  const operations: (string | null)[] = [];
  const context = {
    audit: async (entry: ConsoleAuditEntry) => {
      audited.push(entry);
    },
  } as ConsoleContext;
  const app = express();
  app.use(express.urlencoded({ extended: false }));
  app.use((req, res, next) => {
    const role = req.headers['x-role'] === 'admin' ? 'admin' : 'viewer';
    res.locals.signed = viewFor(
      'en',
      { id: 'session', account: 'vera', role, csrf: 'token', timeZone: null },
      req.originalUrl,
    );
    res.on('finish', () => operations.push(callOf(res as Response).operation));
    next();
  });
  const router = express.Router();
  mountRoutes(
    router,
    context,
    routes.map((entry) => ({
      ...entry,
      handle: (c: ConsoleContext, signed: Signed, input: Parameters<typeof entry.handle>[2]) => {
        handled.push(signed);
        return entry.handle(c, signed, input);
      },
    })),
  );
  app.use(router);
  app.use((_req, res) => res.status(404).end('no such page'));
  return { app, audited, handled, operations };
}

const routes = [
  route({
    method: 'get',
    path: '/things/{id}',
    role: 'viewer',
    operation: 'thing',
    params: z.object({ id: z.enum(['a', 'b']) }),
    query: z.object({ n: z.coerce.number().int().max(5).optional(), note: text(4) }),
    handle: (_c, s, { params, query }) => ({
      title: `Thing ${params.id}`,
      main: `n=${query.n ?? 'none'} note=${query.note ?? 'none'} zone=${s.zone}`,
    }),
  }),
  route({
    method: 'post',
    path: '/things/{id}/remove',
    role: 'admin',
    operation: 'thing-remove',
    params: z.object({ id: z.string() }),
    body: z.object({ why: z.string().min(1) }),
    handle: async (_c, s, { params, body }) => {
      await s.audit({ subject: params.id, outcome: 'allowed', reason: body.why });
      return { redirect: `/console/things/${params.id}?done=1` };
    },
  }),
];

describe('the console route table', () => {
  it('hands the handler its checked inputs and the signed-in context, and draws the page it returns', async () => {
    const { app, handled, operations } = consoleWith(routes);
    const answer = await request(app).get('/console/things/a?n=3&note=abcdefgh');
    expect(answer.status).toBe(200);
    expect(answer.text).toContain('<h1>Thing a</h1>');
    expect(answer.text).toContain('n=3 note=abcd zone=UTC');
    expect(handled.map((s) => [s.session.account, s.role, s.lang, s.zone])).toEqual([['vera', 'viewer', 'en', 'UTC']]);
    expect(operations).toEqual(['thing']);
  });

  it('answers a path its schema refuses as no page, and a query it refuses as a 400 naming the field', async () => {
    const { app, handled } = consoleWith(routes);
    expect((await request(app).get('/console/things/c')).status).toBe(404);
    const bad = await request(app).get('/console/things/a?n=9');
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('class="error-summary"');
    expect(bad.text).toMatch(/<li>n: [^<]*5[^<]*<\/li>/);
    expect(handled).toEqual([]);
  });

  it('refuses a role below the route’s before reading anything, and audits the refusal by the path’s area', async () => {
    const { app, audited, handled } = consoleWith(routes);
    const refused = await request(app).post('/console/things/a/remove').type('form').send({ why: '' });
    expect(refused.status).toBe(403);
    expect(audited).toEqual([
      { address: expect.any(String), account: 'vera', operation: 'things', outcome: 'refused', reason: 'role' },
    ]);
    expect(handled).toEqual([]);
  });

  it('writes the audit entries of a handler as the account, from the address, as the route’s operation, and redirects', async () => {
    const { app, audited } = consoleWith(routes);
    const form = request(app).post('/console/things/b/remove').set('X-Role', 'admin').type('form');
    expect((await form.send({ why: '' })).status).toBe(400);
    const done = await request(app)
      .post('/console/things/b/remove')
      .set('X-Role', 'admin')
      .type('form')
      .send({ why: 'old' });
    expect(done.status).toBe(303);
    expect(done.headers.location).toBe('/console/things/b?done=1');
    expect(audited).toEqual([
      {
        subject: 'b',
        outcome: 'allowed',
        reason: 'old',
        address: expect.any(String),
        account: 'vera',
        operation: 'thing-remove',
      },
    ]);
  });

  it('names a refusal by the first segment of the path, or `other`', () => {
    expect(areaOf('/import/{id}/apply')).toBe('import');
    expect(areaOf('/console/students/1001/edit?x=1')).toBe('students');
    expect(areaOf('/console/')).toBe('other');
    expect(areaOf('/overview.js')).toBe('other');
  });
});
