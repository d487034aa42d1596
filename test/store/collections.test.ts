// The collections' descriptions (src/store/collections/) and what is derived
// from them: the import format's fields (docs/operating.md#import-and-export)
// and the row mapping both ways.
import { FIELDS } from '../../src/import';
import { REQUIRED_FIELDS } from '../../src/import/format';
import { COLLECTION_OF, COLLECTIONS } from '../../src/store';
import { FIXTURES } from '../support/fixtures';

describe('stored collections', () => {
  it('are the import format, in dependency order', () => {
    expect(COLLECTIONS).toEqual(['schools', 'devices', 'students', 'notes', 'absences']);
    expect(FIELDS).toEqual({
      schools: ['baseUrl', 'name', 'timeZone', 'quietHours', 'pushOptions', 'fcmProject', 'eventsUrl'],
      devices: ['id', 'token', 'platform'],
      students: ['id', 'school', 'fullName', 'deviceId', 'active', 'classId'],
      notes: ['id', 'studentId', 'type', 'subjectId', 'classId', 'text', 'date', 'badge', 'state'],
      absences: ['id', 'studentId', 'date', 'type', 'reason', 'seen'],
    });
    expect(REQUIRED_FIELDS).toEqual({
      schools: ['baseUrl', 'name'],
      devices: ['id'],
      students: ['id', 'school', 'fullName'],
      notes: ['id', 'studentId', 'type', 'text', 'date'],
      absences: ['id', 'studentId', 'date', 'type'],
    });
  });

  it.each(COLLECTIONS)('map each fixture %s record to its row and back unchanged', (collection) => {
    const { toRow, fromRow, fieldsSchema } = COLLECTION_OF[collection];
    for (const record of FIXTURES[collection] ?? []) {
      const checked: Record<string, unknown> = fieldsSchema.parse(record);
      const back = fromRow(toRow(checked, '2030-01-01T00:00:00.000Z').row);
      // A note's date comes back as the UTC timestamp the store keeps; the fixtures' students name schools by their key already.
      expect(back).toMatchObject(
        collection === 'notes' ? { ...checked, date: new Date(String(checked.date)).toISOString() } : checked,
      );
    }
  });
});
