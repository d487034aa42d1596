// Editing a school's name, time zone, quiet hours and FCM project, and a device's platform and push token (operators,
// docs/console.md#editing-records), by the shared record form (record-edit.ts):
// the admin API's PATCH /schools and PATCH /devices rules and messages.
import { z } from 'zod';
import { DEFAULT_FCM_PROJECT, knownFcmProjects } from '../domain/fcm-project';
import { COLLECTION_OF } from '../store';
import type { Messages } from './i18n';
import type { EditField, EditSpec } from './record-edit';
import { text } from './route-table';
import { CONSOLE_BASE } from './respond';
import { titled } from './view';

/** A left-to-right text field of the school's clock, with its label and hint. */
function clockField(
  name: string,
  id: string,
  maxLength: number,
  words: (t: Messages) => readonly [string, string],
): EditField {
  return { name, id, label: (t) => words(t)[0], hint: (t) => words(t)[1], maxLength, dir: 'ltr', clearable: true };
}

// The FCM projects configured (docs/delivery.md#fcm-credentials), offered only
// where there is a choice: with the default project alone there is none.
function fcmProjectField(): EditField[] {
  const named = knownFcmProjects().filter((name) => name !== DEFAULT_FCM_PROJECT);
  if (named.length === 0) return [];
  return [
    {
      name: 'fcmProject',
      id: 'school-fcm-project',
      label: (t) => t.fcmProject,
      hint: (t) => t.fcmProjectHint,
      dir: 'ltr',
      clearable: true,
      options: [
        { value: '', label: (t) => t.fcmProjectDefault },
        ...named.map((name) => ({ value: name, label: () => name })),
      ],
    },
  ];
}

export function schoolEdit(baseUrl: string): EditSpec {
  const query = `school=${encodeURIComponent(baseUrl)}`;
  return {
    collection: 'schools',
    fields: [
      { name: 'name', id: 'school-name', label: (t) => t.colName, maxLength: 256, dir: 'auto', untrimmed: true },
      // The school's clock (docs/delivery.md#quiet-hours): an empty field puts it back on UTC, or takes the quiet hours away.
      clockField('timeZone', 'school-time-zone', 64, (t) => [t.timeZone, t.timeZoneHint]),
      clockField('quietHours', 'school-quiet-hours', 11, (t) => [t.quietHours, t.quietHoursHint]),
      ...fcmProjectField(),
    ],
    patch: COLLECTION_OF.schools.schema
      .pick({ name: true, timeZone: true, quietHours: true, fcmProject: true })
      .partial(),
    operation: 'school-edit',
    subjectKind: 'school',
    title: (t, record) => titled(t.editSchoolTitle, String(record.name)),
    action: `${CONSOLE_BASE}/schools/edit?${query}`,
    back: `${CONSOLE_BASE}/schools/students?${query}`,
    saved: `${CONSOLE_BASE}/schools/students?${query}&saved=1`,
    missing: (t) => t.schoolMissing,
    current: 'schools',
  };
}

/** `student`: the student whose page led here, to go back to. */
export function deviceEdit(id: string, student: string | null): EditSpec {
  const back =
    student === null ? `${CONSOLE_BASE}/students` : `${CONSOLE_BASE}/students/${encodeURIComponent(student)}`;
  const query = student === null ? '' : `?student=${encodeURIComponent(student)}`;
  return {
    collection: 'devices',
    fields: [
      {
        name: 'platform',
        id: 'platform',
        label: (t) => t.platform,
        dir: 'ltr',
        clearable: true,
        options: [
          { value: '', label: (t) => t.platformUnknown },
          { value: 'android', label: () => 'Android' },
          { value: 'ios', label: () => 'iOS' },
          { value: 'web', label: () => 'Web' },
        ],
      },
      {
        name: 'token',
        id: 'push-token',
        label: (t) => t.pushToken,
        hint: (t) => t.tokenKeepHint,
        maxLength: 4096,
        dir: 'ltr',
        secret: true,
      },
    ],
    patch: COLLECTION_OF.devices.schema.pick({ platform: true, token: true }).partial(),
    operation: 'device-edit',
    subjectKind: 'device',
    title: (t) => titled(t.editDeviceTitle, id),
    action: `${CONSOLE_BASE}/devices/${encodeURIComponent(id)}/edit${query}`,
    back,
    saved: student === null ? back : `${back}?saved=device`,
    missing: (t) => t.deviceMissing,
    current: 'students',
  };
}

/** The school form's query: the school's base URL. */
export const schoolEditQuery = z.object({ school: text(512).transform((value) => value ?? '') });
/** The device form's query: the student whose page it was opened from, to go back to. */
export const deviceEditQuery = z.object({ student: text(128).transform((value) => value || null) });
