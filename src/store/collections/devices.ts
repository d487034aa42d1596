// Devices of the parents' apps (docs/design.md#import-format): the push token
// GetTokenDevice answers and the delivery worker sends to.
import { defineCollection } from './collection';
import { nullableChoice, optionalText, requiredText } from './fields';

export const devices = defineCollection({
  name: 'devices',
  noun: 'device',
  title: 'Device',
  table: 'devices',
  key: 'id',
  keyColumn: 'id',
  fields: {
    id: requiredText('id', 128, { description: 'Device id, as the app reports it.' }),
    token: optionalText('push_token', 4096, 'Push token (FCM registration token)'),
    platform: nullableChoice('platform', ['android', 'ios', 'web'], undefined, { filter: true }),
  },
  // updated_at records a real change only (see write-data-set.ts), so re-importing the same devices is a no-op.
  derived: (_record, now) => ({ row: { updated_at: now }, given: [] }),
});
