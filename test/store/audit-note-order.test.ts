// GetStudentsAudtiNote's order, newest first and then by id, when SQLite
// reads the notes by date alone and the ids' order within a date is put
// right afterwards (src/store/records/rows.ts, idOrderWithinDate): many
// notes at one instant, written in the reverse of their ids' order, ids that
// order differently by UTF-16 code unit and by code point, on both stores.
import type { DataSet } from '../../src/store';
import { compareCodePoints, idOrderWithinDate } from '../../src/store/records/rows';
import { storeVariants, type TestStore } from '../support/stores';

const SCHOOL = 'https://order.school.example';
const SAME = '2025-10-08T09:30:00Z';
// U+E000 is after a surrogate as a UTF-16 code unit, before U+10000 as a code point (and as UTF-8 bytes).
const TRAPS = ['n-\uE000', 'n-\u{10000}', 'n-z', 'n-Z', 'n-a10', 'n-a9', 'n-a', 'n-'];
const MANY = Array.from({ length: 40 }, (_, i) => `m-${String(39 - i).padStart(2, '0')}`);

const DATA: DataSet = {
  schools: [{ baseUrl: SCHOOL, name: 'Order' }],
  students: [{ id: 's-1', school: SCHOOL, fullName: 'One', deviceId: null, active: '1', classId: 'C' }],
  notes: [
    ...[...TRAPS, ...MANY].map((id) => ({ id, date: SAME })),
    { id: 'b-newer', date: '2025-10-09T00:00:00Z' },
    { id: 'a-older', date: '2025-10-01T00:00:00Z' },
    { id: 'c-older', date: '2025-10-01T00:00:00Z' },
  ].map(({ id, date }) => ({
    id,
    studentId: 's-1',
    type: 'audit',
    subjectId: 'ORDER',
    classId: 'C',
    text: id,
    date,
    badge: '1',
    state: 'unread',
  })),
};

const byBytes = (a: string, b: string) => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));

describe('compareCodePoints', () => {
  it('orders as UTF-8 bytes do (SQLite BINARY), not as UTF-16 code units', () => {
    const texts = ['', 'a', 'ab', 'b', 'Z', '\uE000', '\uFFFF', '\u{10000}', '\u{1F600}', 'a\u{10000}', 'a\uE000', 'ب'];
    for (const a of texts)
      for (const b of texts) expect([a, b, Math.sign(compareCodePoints(a, b))]).toEqual([a, b, byBytes(a, b)]);
  });

  it('leaves rows already in order as they are, and sorts a date run that is not', () => {
    const rows = [
      { id: 'b', note_date: '2' },
      { id: 'a', note_date: '2' },
      { id: 'c', note_date: '1' },
    ];
    expect(idOrderWithinDate(rows).map((row) => row.id)).toEqual(['a', 'b', 'c']);
  });
});

describe.each(storeVariants())('audit notes order on $name', (variant) => {
  let ctx: TestStore;

  beforeAll(async () => {
    ctx = await variant.create();
    await ctx.store.dataSet.writeDataSet(DATA);
  });
  afterAll(() => ctx.cleanup());

  it('lists newest first, ties by id in code point order', async () => {
    const notes = await ctx.store.records.listAuditNotes('ORDER', 'C');
    const tied = [...TRAPS, ...MANY].sort(byBytes);
    expect(notes.map((note) => note.id)).toEqual(['b-newer', ...tied, 'a-older', 'c-older']);
  });
});
