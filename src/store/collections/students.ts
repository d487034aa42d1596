// Students (docs/design.md#import-format). A student's school is stored as the
// school's key, which normalises to itself, so an export imports back to the
// same school.
import { schoolKey } from '../../domain/school-key';
import { defineCollection } from './collection';
import { choice, optionalText, requiredText } from './fields';

export const students = defineCollection({
  name: 'students',
  noun: 'student',
  title: 'Student',
  table: 'students',
  key: 'id',
  keyColumn: 'id',
  fields: {
    id: requiredText('id', 128, { description: 'Student id, unique in the service.' }),
    school: requiredText('school_key', 512, {
      description: 'Base URL of a stored school.',
      toColumn: schoolKey,
      filter: 'Base URL of the school, in any form that matches it.',
    }),
    fullName: requiredText('full_name', 256),
    deviceId: optionalText('device_id', 128, "Id of the device the parents' app registered", { filter: true }),
    active: choice('active', ['1', '0'], {
      description: '1 active (default for a new student), 0 inactive.',
      default: '1',
      message: 'must be "1" or "0".',
      filter: true,
    }),
    classId: optionalText('class_id', 64, 'Class id', { filter: true }),
  },
  // A student may name a device not registered yet; deleting a device leaves the id (registering it again restores the notifications).
  references: {
    school: { collection: 'schools', onDelete: 'refuse' },
    deviceId: { collection: 'devices', onDelete: 'keep' },
  },
});
