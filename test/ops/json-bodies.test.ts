// JSON_BODIES=true: the mobile apps' arrays over HTTP GET and POST for the
// three note and absence operations (docs/design.md#json-bodies); everything else as
// the contract says.
import { storeVariants } from '../support/stores';
import { startOperatedService, type OperatedService } from '../support/operated-service';
import { answer, bodyText, httpGet, httpPost, soap11 } from '../support/wire';

const ABSENCE_FIELDS = ['srid', 'absence_date', 'absence_type', 'reason'];
const NOTE_FIELDS = ['srid', 'note_date', 'note', 'note_type', 'badge', 'id', 'IDNote'];

function parsedArray(res: { body: unknown; headers: Record<string, string> }): Record<string, unknown>[] {
  expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
  const parsed: unknown = JSON.parse(bodyText(res));
  expect(Array.isArray(parsed)).toBe(true);
  return parsed as Record<string, unknown>[];
}

function expectShape(items: Record<string, unknown>[], fields: string[]): void {
  for (const item of items) {
    expect(Object.keys(item)).toEqual(fields);
    for (const value of Object.values(item)) expect(typeof value).toBe('string');
  }
}

describe.each(storeVariants())('JSON bodies on $name', (variant) => {
  describe('with JSON_BODIES=true', () => {
    let service: OperatedService;
    beforeEach(async () => {
      service = await startOperatedService(variant, { JSON_BODIES: 'true' });
    });
    afterEach(() => service.stop());

    it.each([
      ['GET', httpGet],
      ['POST', httpPost],
    ])(
      'GetStudentsAbcenceByID over HTTP %s answers the absences array, newest first, null as ""',
      async (_binding, call) => {
        const res = await call(service.app, 'GetStudentsAbsence', 'GetStudentsAbcenceByID', { STDid: '1001' });
        expect(res.status).toBe(200);
        const items = parsedArray(res);
        expectShape(items, ABSENCE_FIELDS);
        expect(items).toEqual([
          { srid: '1001', absence_date: '2026-10-07', absence_type: 'late', reason: '' },
          { srid: '1001', absence_date: '2026-10-05', absence_type: 'full-day', reason: 'مريض' },
        ]);
      },
    );

    it.each([
      ['GET', httpGet],
      ['POST', httpPost],
    ])(
      'UpdateNoteState over HTTP %s answers the notes array; id and IDNote are the note id',
      async (_binding, call) => {
        const res = await call(service.app, 'ReadNoteFromApp', 'UpdateNoteState', {
          STDid: '1001',
          note_type: 'behaviour',
        });
        expect(res.status).toBe(200);
        const items = parsedArray(res);
        expectShape(items, NOTE_FIELDS);
        expect(items).toEqual([
          {
            srid: '1001',
            note_date: '2026-10-02T09:00:00.000Z',
            note: 'Talked in class',
            note_type: 'behaviour',
            badge: '',
            id: 'n3',
            IDNote: 'n3',
          },
        ]);
      },
    );

    it.each([
      ['GET', httpGet],
      ['POST', httpPost],
    ])('GetStudentsAudtiNote over HTTP %s answers the class notes array', async (_binding, call) => {
      const res = await call(service.app, 'GetStudentsAudit', 'GetStudentsAudtiNote', {
        SubjectID: 'MATH',
        Class_id: '7A',
      });
      const items = parsedArray(res);
      expectShape(items, NOTE_FIELDS);
      expect(items.map((n) => n.id)).toEqual(['n2', 'n1']);
      expect(items[0]).toEqual({
        srid: '1002',
        note_date: '2026-10-03T08:00:00.000Z',
        note: 'ممتاز',
        note_type: 'audit',
        badge: '2',
        id: 'n2',
        IDNote: 'n2',
      });
    });

    it('answers an empty array when nothing matches', async () => {
      const res = await httpGet(service.app, 'GetStudentsAbsence', 'GetStudentsAbcenceByID', { STDid: 'nobody' });
      expect(bodyText(res)).toBe('[]');
    });

    it('leaves SOAP answers exactly as the contract says', async () => {
      const res = await soap11(service.app, 'GetStudentsAbsence', 'GetStudentsAbcenceByID', { STDid: '1001' });
      expect(res.status).toBe(200);
      expect(bodyText(res)).toBe(answer('1.1', '<GetStudentsAbcenceByIDResponse xmlns="http://tempuri.org/" />'));
    });

    it('leaves errors and the other operations alone', async () => {
      const missing = await httpGet(service.app, 'GetStudentsAbsence', 'GetStudentsAbcenceByID', {});
      expect(missing.status).toBe(500);
      expect(missing.headers['content-type']).toBe('text/plain; charset=utf-8');
      expect(bodyText(missing)).toBe('Missing parameter: STDid.\r\n');
      const token = await httpGet(service.app, 'PushNotificationMobile', 'GetTokenDevice', { id: 'dev-1001' });
      expect(token.headers['content-type']).toBe('text/xml; charset=utf-8');
    });
  });

  describe('by default', () => {
    let service: OperatedService;
    beforeEach(async () => {
      service = await startOperatedService(variant);
    });
    afterEach(() => service.stop());

    it('answers the void result of the contract: 200, no body, no Content-Type', async () => {
      const res = await httpPost(service.app, 'GetStudentsAbsence', 'GetStudentsAbcenceByID', { STDid: '1001' });
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBeUndefined();
      expect(bodyText(res)).toBe('');
    });
  });
});
