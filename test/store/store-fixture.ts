import type { DataSet } from '../../src/store';

// Built so that every ordering rule has a tie or a trap: two students with
// the same name, names that sort differently by code point and by locale,
// notes at the same instant, a note date written with an offset, a student
// whose device was never registered.
export const SCHOOL_A = 'https://alnoor.school.example';
export const SCHOOL_B_AS_IMPORTED = 'https://Riverside.School.Example/';
export const SCHOOL_B = 'https://riverside.school.example';

export const STORE_FIXTURE: DataSet = {
  schools: [
    { baseUrl: SCHOOL_A, name: 'مدرسة النور' },
    { baseUrl: SCHOOL_B_AS_IMPORTED, name: 'Riverside Academy' },
  ],
  devices: [
    { id: 'dev-1', token: 'tok-1', platform: 'android' },
    { id: 'dev-2', token: 'tok-2&<x>"', platform: 'ios' },
    { id: 'dev-3', token: null, platform: 'android' },
  ],
  students: [
    { id: '1002', school: SCHOOL_A, fullName: 'Ahmad Ali', deviceId: 'dev-1', active: '1', classId: '7A' },
    { id: '1010', school: SCHOOL_A, fullName: 'Ahmad Ali', deviceId: 'dev-2', active: '1', classId: '7A' },
    { id: '1003', school: SCHOOL_A, fullName: 'أحمد علي', deviceId: 'dev-2', active: '1', classId: '7A' },
    { id: '1004', school: SCHOOL_A, fullName: `O'Brien & <Sons> "Q"`, deviceId: 'dev-3', active: '1', classId: '7B' },
    { id: '1005', school: SCHOOL_A, fullName: 'adam lower', deviceId: null, active: '1', classId: null },
    { id: '1006', school: SCHOOL_A, fullName: 'Zed Upper', deviceId: 'dev-9', active: '1', classId: '7A' },
    { id: '1007', school: SCHOOL_A, fullName: 'Inactive One', deviceId: 'dev-1', active: '0', classId: '7A' },
    {
      id: '2001',
      school: 'HTTPS://RIVERSIDE.school.example',
      fullName: 'Emma Clarke',
      deviceId: null,
      active: '1',
      classId: '9C',
    },
  ],
  notes: [
    {
      id: 'n-1',
      studentId: '1002',
      type: 'audit',
      subjectId: 'MATH',
      classId: '7A',
      text: 'Homework missing',
      date: '2025-10-06T08:15:00Z',
      badge: '1',
      state: 'unread',
    },
    {
      id: 'n-2',
      studentId: '1003',
      type: 'audit',
      subjectId: 'MATH',
      classId: '7A',
      text: 'ممتاز',
      date: '2025-10-08T09:30:00Z',
      badge: '3',
      state: 'read',
    },
    {
      id: 'n-3',
      studentId: '1004',
      type: 'audit',
      subjectId: 'MATH',
      classId: '7A',
      text: 'Same instant as n-2',
      date: '2025-10-08T09:30:00.000Z',
      badge: null,
      state: 'unread',
    },
    {
      id: 'n-4',
      studentId: '1002',
      type: 'audit',
      subjectId: 'SCI',
      classId: '7A',
      text: 'Other subject',
      date: '2025-10-07T11:00:00Z',
      badge: '2',
      state: 'unread',
    },
    {
      id: 'n-5',
      studentId: '1002',
      type: 'audit',
      subjectId: 'MATH',
      classId: '7B',
      text: 'Other class',
      date: '2025-10-09T11:00:00Z',
      badge: null,
      state: 'unread',
    },
    {
      id: 'n-6',
      studentId: '1002',
      type: 'behaviour',
      subjectId: 'MATH',
      classId: '7A',
      text: 'Not an audit',
      date: '2025-10-10T12:00:00Z',
      badge: null,
      state: 'unread',
    },
    {
      id: 'n-7',
      studentId: '1002',
      type: 'behaviour',
      subjectId: null,
      classId: '7A',
      text: 'Already read',
      date: '2025-10-05T10:45:00Z',
      badge: '5',
      state: 'read',
    },
    {
      id: 'n-8',
      studentId: '1003',
      type: 'behaviour',
      subjectId: null,
      classId: '7A',
      text: 'Other student',
      date: '2025-10-05T10:45:00Z',
      badge: null,
      state: 'unread',
    },
    // 07:00 UTC: older than n-1 although its local time reads later.
    {
      id: 'n-9',
      studentId: '1002',
      type: 'audit',
      subjectId: 'MATH',
      classId: '7A',
      text: 'With offset',
      date: '2025-10-06T10:00:00+03:00',
      badge: null,
      state: 'unread',
    },
  ],
  absences: [
    { id: 'a-1', studentId: '1002', date: '2025-10-02', type: 'full-day', reason: 'مريض', seen: false },
    { id: 'a-2', studentId: '1002', date: '2025-10-09', type: 'late', reason: null, seen: false },
    { id: 'a-3', studentId: '1002', date: '2025-10-09', type: 'early-leave', reason: 'Dentist', seen: true },
    { id: 'a-4', studentId: '1003', date: '2025-10-03', type: 'full-day', reason: 'Family matter', seen: false },
  ],
};

/** A clock the test moves by hand. */
export { testClock } from '../support/stores';
