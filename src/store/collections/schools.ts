// Schools (docs/design.md#import-format): keyed by their base URL, stored
// normalised (src/domain/school-key.ts) so that any spelling finds the school.
import { schoolKey } from '../../domain/school-key';
import { defineCollection } from './collection';
import { requiredText } from './fields';

export const schools = defineCollection({
  name: 'schools',
  noun: 'school',
  title: 'School',
  table: 'schools',
  key: 'baseUrl',
  keyColumn: 'key',
  fields: {
    baseUrl: requiredText('base_url', 512, {
      description: 'The school base URL, its key: matched case-insensitively on scheme and host, a trailing / ignored.',
    }),
    name: requiredText('name', 256),
  },
  // The base URL is kept as written; the key is what lookups match.
  derived: (record) => ({ row: { key: schoolKey(record.baseUrl as string) }, given: [] }),
});
