// Schools (docs/design.md#import-format): keyed by their base URL, stored
// normalised (src/domain/school-key.ts) so that any spelling finds the school.
import { FCM_PROJECT_NAME_MAX, isKnownFcmProject } from '../../domain/fcm-project';
import { OptionsByTypeSchema } from '../../domain/message-options';
import { schoolKey } from '../../domain/school-key';
import {
  DEFAULT_TIME_ZONE,
  isTimeZone,
  MAX_TIME_ZONE_LENGTH,
  parseQuietHours,
  QUIET_HOURS_SYNTAX,
} from '../../domain/school-time';
import { defineCollection } from './collection';
import { checkedText, jsonObject, requiredText } from './fields';

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
    // The school's clock and message options (docs/delivery.md#quiet-hours, #message-options).
    timeZone: checkedText(
      'time_zone',
      MAX_TIME_ZONE_LENGTH,
      { valid: isTimeZone, message: 'must be an IANA time zone name, such as Asia/Riyadh.' },
      'IANA time zone of the school (its quiet hours and local times); UTC for a new school',
      DEFAULT_TIME_ZONE,
    ),
    quietHours: checkedText(
      'quiet_hours',
      11,
      { valid: (value) => parseQuietHours(value) !== null, message: `must be ${QUIET_HOURS_SYNTAX}.` },
      'Quiet hours in the school time zone, HH:MM-HH:MM, may wrap past midnight: non-urgent notifications queued then are held until they end',
    ),
    pushOptions: jsonObject(
      'push_options',
      OptionsByTypeSchema,
      "The school's message options per notification type (`*`: any other), over the service's",
    ),
    // Checked against the projects configured now (FCM_PROJECTS), so that a
    // typo is refused at the write rather than failing every push later.
    fcmProject: checkedText(
      'fcm_project',
      FCM_PROJECT_NAME_MAX,
      { valid: isKnownFcmProject, message: 'must name an FCM project configured in FCM_PROJECTS, or default.' },
      'The FCM project its pushes go through, one named in FCM_PROJECTS; null: `default`',
    ),
  },
  // The base URL is kept as written; the key is what lookups match.
  derived: (record) => ({ row: { key: schoolKey(record.baseUrl as string) }, given: [] }),
});
