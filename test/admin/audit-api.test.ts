// GET /admin/api/v1/audit: the audit trail newest first, filtered and paged
// like the other admin listings, behind the admin token, in the OpenAPI document.
import request from 'supertest';
import type { NewAuditRow } from '../../src/store';
import { auditRow } from '../support/fixtures';
import { ADMIN_TOKEN, startOperatedService, type OperatedService } from '../support/operated-service';
import { storeVariants } from '../support/stores';

const BASE = '/admin/api/v1';

const row = (hour: number, overrides: Partial<NewAuditRow> = {}): NewAuditRow =>
  auditRow(`2030-01-01T${String(hour).padStart(2, '0')}:00:00.000Z`, overrides);

describe.each(storeVariants())('admin audit listing on $name', (variant) => {
  let service: OperatedService;
  beforeEach(async () => {
    service = await startOperatedService(variant);
    await service.store.access.insertAuditEntries([
      row(1),
      row(2, { subject: '1002', address: '10.0.0.2' }),
      row(3, {
        user: 'sis-alnoor',
        endpoint: 'PushNotificationMobile',
        operation: 'GetStudentSchool',
        subjectKind: 'school',
        subject: 'https://a.example',
      }),
      row(4, { outcome: 'refused', reason: 'enumeration', address: '10.0.0.2', subject: '1003' }),
      row(5, { outcome: 'refused', reason: 'auth', address: '10.0.0.9' }),
    ]);
  });
  afterEach(() => service.stop());

  const get = (query: string) =>
    request(service.app).get(`${BASE}/audit${query}`).set('Authorization', `Bearer ${ADMIN_TOKEN}`);
  const hours = (body: { items: { at: string }[] }) => body.items.map((item) => Number(item.at.slice(11, 13)));

  it('needs the admin token', async () => {
    const res = await request(service.app).get(`${BASE}/audit`);
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('unauthorized');
    expect(
      (await request(service.app).get(`${BASE}/audit`).set('Authorization', `Bearer ${ADMIN_TOKEN}x`)).status,
    ).toBe(401);
  });

  it('lists newest first, paged with limit and offset like the other listings', async () => {
    const first = await get('?limit=2');
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ total: 5, limit: 2, offset: 0, nextOffset: 2 });
    expect(hours(first.body)).toEqual([5, 4]);
    expect(first.body.items[0]).toEqual({
      id: expect.any(String),
      at: '2030-01-01T05:00:00.000Z',
      address: '10.0.0.9',
      user: null,
      endpoint: 'NotificationNotes',
      operation: 'GetStudentsAbcenceByID',
      subjectKind: 'student',
      subject: '1001',
      outcome: 'refused',
      reason: 'auth',
      subjectLength: null,
      subjectSha256: null,
      omitted: null,
    });
    const last = await get('?limit=2&offset=4');
    expect(hours(last.body)).toEqual([1]);
    expect(last.body.nextOffset).toBeNull();
  });

  it('stops a page at about 1 MiB of entries and gives the offset to continue from', async () => {
    // Entries written before subjects were cut (migration 0006 cuts them; here they go to the store directly).
    const long = (i: number) => `${String(i).padStart(4, '0')}${'9'.repeat(5000)}`;
    await service.store.access.insertAuditEntries(
      Array.from({ length: 500 }, (_, i) =>
        row(6, {
          subject: long(i),
          at: `2030-01-01T06:${String(Math.floor(i / 60)).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}.000Z`,
        }),
      ),
    );
    const first = await get('?limit=500');
    expect(first.status).toBe(200);
    expect(Buffer.byteLength(first.text)).toBeGreaterThan(1024 * 1024);
    expect(Buffer.byteLength(first.text)).toBeLessThan(1024 * 1024 + 6000);
    expect(first.body.items.length).toBeLessThan(500);
    expect(first.body).toMatchObject({ total: 505, limit: 500, offset: 0, nextOffset: first.body.items.length });
    const ids = new Set<string>(first.body.items.map((item: { id: string }) => item.id));
    for (let offset = first.body.nextOffset as number | null; offset !== null;) {
      const page = await get(`?limit=500&offset=${offset}`);
      for (const item of page.body.items as { id: string }[]) ids.add(item.id);
      offset = page.body.nextOffset;
    }
    expect(ids.size).toBe(505);
  });

  it.each([
    ['?from=2030-01-01T02:00:00Z&to=2030-01-01T04:00:00Z', [3, 2]],
    ['?from=2030-01-01T05:00:00%2B02:00', [5, 4, 3]],
    ['?outcome=refused', [5, 4]],
    ['?address=10.0.0.2', [4, 2]],
    ['?user=sis-alnoor', [3]],
    ['?endpoint=PushNotificationMobile', [3]],
    ['?operation=GetStudentsAbcenceByID&subject=1001', [5, 1]],
    ['?subject=nobody', []],
  ])('filters %s', async (query, expected) => {
    const res = await get(query);
    expect(res.status).toBe(200);
    expect(hours(res.body)).toEqual(expected);
    expect(res.body.total).toBe(expected.length);
  });

  it('refuses a bad filter with the error shape of the other routes', async () => {
    for (const query of ['?from=yesterday', '?outcome=maybe', '?limit=0', '?colour=red']) {
      const res = await get(query);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('invalid_request');
    }
  });

  it('is described in the OpenAPI document with its filters', async () => {
    const document = (await request(service.app).get(`${BASE}/openapi.json`)).body;
    const operation = document.paths['/audit'].get;
    expect(operation.operationId).toBe('list_audit');
    expect(operation.parameters.map((p: { name: string }) => p.name).sort()).toEqual(
      ['address', 'endpoint', 'from', 'limit', 'offset', 'operation', 'outcome', 'subject', 'to', 'user'].sort(),
    );
    expect(document.components.schemas.AuditEntry).toBeDefined();
  });
});
