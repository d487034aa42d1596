// Import and admin API accept exactly the same records (docs/operating.md#one-set-of-rules):
// every record here is both imported (a dry run, so that nothing is kept) and
// sent to the admin API, and both must give the same verdict in the same
// words. Each length limit is tried at its value and one past it.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { importFiles } from '../../src/import';
import type { DataSetCollection } from '../../src/store';
import { ADMIN_TOKEN, startOperatedService, type OperatedService } from '../support/operated-service';
import { storeVariants } from '../support/stores';

/** A record as sent, in both ways. */
type Sent = Readonly<{ [field: string]: unknown }>;

const BASE: { readonly [C in DataSetCollection]: (key: string) => Sent } = {
  schools: (key) => ({ baseUrl: `https://${key}.example`, name: 'A school' }),
  students: (key) => ({
    id: key,
    school: 'https://school-a.example',
    fullName: 'A student',
    deviceId: 'dev-1001',
    active: '1',
    classId: '7A',
  }),
  devices: (key) => ({ id: key, token: 'fcm:t', platform: 'android' }),
  notes: (key) => ({
    id: key,
    studentId: '1001',
    type: 'general',
    subjectId: 'MATH',
    classId: '7A',
    text: 'x',
    date: '2026-11-01T07:00:00Z',
    badge: '1',
    state: 'unread',
  }),
  absences: (key) => ({ id: key, studentId: '1001', date: '2026-11-02', type: 'late', reason: 'Bus', seen: false }),
};

/** Every length limit: collection, field, at most this many characters. */
const LIMITS: readonly (readonly [DataSetCollection, string, number])[] = [
  ['schools', 'baseUrl', 512],
  ['schools', 'name', 256],
  ['students', 'id', 128],
  ['students', 'school', 512],
  ['students', 'fullName', 256],
  ['students', 'deviceId', 128],
  ['students', 'classId', 64],
  ['devices', 'id', 128],
  ['devices', 'token', 4096],
  ['notes', 'id', 128],
  ['notes', 'studentId', 128],
  ['notes', 'type', 64],
  ['notes', 'subjectId', 64],
  ['notes', 'classId', 64],
  ['notes', 'text', 8000],
  ['notes', 'badge', 64],
  ['absences', 'id', 128],
  ['absences', 'studentId', 128],
  ['absences', 'type', 64],
  ['absences', 'reason', 1000],
];

/** `length` characters, a letter of its own per field (so that keys do not collide); a base URL, so that it can be a school's. */
const valueOf = (field: string, length: number): string => {
  const text = field === 'baseUrl' || field === 'school' ? 'https://long.example/' : '';
  return text + field.charAt(0).repeat(length - text.length);
};

/** Other rules the two used to disagree on, or that are easy to break apart. */
const OTHERS: readonly (readonly [string, DataSetCollection, Sent, boolean])[] = [
  ['a name padded with spaces (trimmed, then counted)', 'students', { fullName: ` ${'n'.repeat(256)} ` }, true],
  ['an empty name', 'students', { fullName: '  ' }, false],
  ['an active flag other than 1 or 0', 'students', { active: 'yes' }, false],
  ['an active flag written as the number 0', 'students', { active: 0 }, true],
  ['an active flag written as the number 1', 'students', { active: 1 }, true],
  ['an active flag written as the number 2', 'students', { active: 2 }, false],
  ['an empty class (cleared)', 'students', { classId: '' }, true],
  ['an unknown platform', 'devices', { platform: 'symbian' }, false],
  ['a note date that is no ISO 8601 timestamp', 'notes', { date: '01/11/2026' }, false],
  ['a note dated 30 February', 'notes', { date: '2026-02-30T10:00:00Z' }, false],
  ['a note date with an offset', 'notes', { date: '2026-11-01T08:00:00+02:00' }, true],
  ['an unknown note state', 'notes', { state: 'gone' }, false],
  ['an absence date with a time', 'absences', { date: '2026-11-02T10:00' }, false],
  ['an absence dated 30 February', 'absences', { date: '2026-02-30' }, false],
  ['a missing absence type', 'absences', { type: undefined }, false],
];

describe.each(storeVariants())('import and admin API agree on $name', (variant) => {
  let service: OperatedService;
  let dir: string;
  beforeAll(async () => {
    service = await startOperatedService(variant);
    dir = mkdtempSync(path.join(os.tmpdir(), 'sns-same-rules-'));
    // What the references at their limit name: a school with the longest base URL, a student with the longest id.
    await service.store.dataSet.writeDataSet({
      schools: [{ baseUrl: valueOf('school', 512), name: 'Long' }],
      students: [{ id: valueOf('studentId', 128), school: 'https://school-a.example', fullName: 'Long' }],
    });
  });
  afterAll(async () => {
    await service.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  let files = 0;
  /** The import's verdict on one record: null when accepted, else the reason (`field problem`). */
  async function imported(collection: DataSetCollection, record: Sent): Promise<string | null> {
    const file = path.join(dir, `${++files}.json`);
    writeFileSync(file, JSON.stringify({ [collection]: [record] }));
    const report = await importFiles(service.store.dataSet, [file], { dryRun: true });
    const [only] = report.files;
    if (only?.error !== null) throw new Error(`the import failed as a whole: ${only?.error}`);
    return only.rejected[0]?.reason ?? null;
  }

  /** The admin API's verdict on creating the same record: null when created, else `field problem`. */
  async function created(collection: DataSetCollection, record: Sent): Promise<string | null> {
    const res = await request(service.app)
      .post(`/admin/api/v1/${collection}`)
      .set('Authorization', `Bearer ${ADMIN_TOKEN}`)
      .send(record);
    if (res.status === 201) return null;
    expect([400, 422]).toContain(res.status);
    const [detail] = res.body.error.details as { path: string; message: string }[];
    return `${detail?.path.replace(/^body\./, '')} ${detail?.message}`;
  }

  describe.each(LIMITS)('%s.%s: at most %i characters', (collection, field, max) => {
    it.each([
      [max, true],
      [max + 1, false],
    ])('%i characters: accepted %s by both', async (length, accepted) => {
      const key = field === 'id' || field === 'baseUrl' ? null : `${field}-${length}`;
      const base = BASE[collection](key ?? 'k');
      const record = { ...base, [field]: valueOf(field, length) };
      const verdicts = { import: await imported(collection, record), admin: await created(collection, record) };
      const refusal = accepted ? null : `${field} must be at most ${max} characters.`;
      expect(verdicts).toEqual({ import: refusal, admin: refusal });
    });
  });

  it.each(OTHERS)('%s: the same verdict from both', async (what, collection, change, accepted) => {
    const record = { ...BASE[collection](`other-${OTHERS.findIndex(([w]) => w === what)}`), ...change };
    const verdicts = { import: await imported(collection, record), admin: await created(collection, record) };
    expect(verdicts.import).toEqual(verdicts.admin);
    expect(verdicts.import === null).toBe(accepted);
  });
});
