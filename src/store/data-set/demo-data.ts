import type { DataSet, DataSetCounts } from './data-set';
import type { DemoDataStore } from '../roles';

// A small school year that exercises every case a client might meet: Arabic
// and Latin names (and one full of XML metacharacters), inactive students,
// siblings on one device, a device without a token, read and unread notes.
// Dates are fixed so that every fresh store looks the same.
export const DEMO_DATA: DataSet = {
  schools: [
    { baseUrl: 'https://alnoor.school.example', name: 'مدرسة النور' },
    { baseUrl: 'https://riverside.school.example', name: 'Riverside Academy' },
  ],
  devices: [
    { id: 'dev-1001', token: 'demo-fcm-token-1001', platform: 'android' },
    // Shared by the siblings 1002 and 1003.
    { id: 'dev-1002', token: 'demo-apns-token-1002', platform: 'ios' },
    { id: 'dev-1004', token: 'demo-fcm-token-1004', platform: 'android' },
    // Registered but never sent a token: pushes to it cannot be delivered.
    { id: 'dev-1005', token: null, platform: 'android' },
    { id: 'dev-2001', token: 'demo-apns-token-2001', platform: 'ios' },
    { id: 'dev-2002', token: 'demo-fcm-token-2002', platform: 'android' },
  ],
  students: [
    { id: '1001', school: 'https://alnoor.school.example', fullName: 'أحمد علي', deviceId: 'dev-1001', active: '1', classId: '7A' },
    { id: '1002', school: 'https://alnoor.school.example', fullName: 'فاطمة حسن', deviceId: 'dev-1002', active: '1', classId: '7A' },
    { id: '1003', school: 'https://alnoor.school.example', fullName: 'يوسف حسن', deviceId: 'dev-1002', active: '1', classId: '5B' },
    { id: '1004', school: 'https://alnoor.school.example', fullName: 'مريم خالد', deviceId: 'dev-1004', active: '0', classId: '7A' },
    { id: '1005', school: 'https://alnoor.school.example', fullName: 'Omar Saeed', deviceId: 'dev-1005', active: '1', classId: '7A' },
    { id: '2001', school: 'https://riverside.school.example', fullName: `O'Brien & <Sons> "Q"`, deviceId: 'dev-2001', active: '1', classId: '9C' },
    { id: '2002', school: 'https://riverside.school.example', fullName: 'Emma Clarke', deviceId: 'dev-2002', active: '1', classId: '9C' },
    { id: '2003', school: 'https://riverside.school.example', fullName: 'Liam Turner', deviceId: null, active: '0', classId: '8A' },
  ],
  notes: [
    {
      id: 'note-1',
      studentId: '1001',
      type: 'audit',
      subjectId: 'MATH',
      classId: '7A',
      text: 'لم يُسلّم الواجب المنزلي',
      date: '2025-10-06T08:15:00Z',
      badge: '1',
      state: 'unread',
    },
    {
      id: 'note-2',
      studentId: '1002',
      type: 'audit',
      subjectId: 'MATH',
      classId: '7A',
      text: 'أداء ممتاز في الاختبار',
      date: '2025-10-08T09:30:00Z',
      badge: '3',
      state: 'read',
    },
    {
      id: 'note-3',
      studentId: '1005',
      type: 'audit',
      subjectId: 'MATH',
      classId: '7A',
      text: 'Forgot his calculator',
      date: '2025-10-08T09:30:00Z',
      badge: '1',
      state: 'unread',
    },
    {
      id: 'note-4',
      studentId: '1001',
      type: 'audit',
      subjectId: 'SCI',
      classId: '7A',
      text: 'Lab report handed in late',
      date: '2025-10-07T11:00:00Z',
      badge: '2',
      state: 'unread',
    },
    {
      id: 'note-5',
      studentId: '1001',
      type: 'behaviour',
      subjectId: null,
      classId: '7A',
      text: 'تحدّث أثناء الدرس',
      date: '2025-10-05T10:45:00Z',
      badge: null,
      state: 'unread',
    },
    {
      id: 'note-6',
      studentId: '1001',
      type: 'behaviour',
      subjectId: null,
      classId: '7A',
      text: 'Helped a classmate',
      date: '2025-10-09T12:00:00Z',
      badge: '5',
      state: 'read',
    },
    {
      id: 'note-7',
      studentId: '1003',
      type: 'general',
      subjectId: null,
      classId: '5B',
      text: 'رحلة مدرسية يوم الخميس',
      date: '2025-10-10T07:00:00Z',
      badge: null,
      state: 'unread',
    },
    {
      id: 'note-8',
      studentId: '2001',
      type: 'audit',
      subjectId: 'ENG',
      classId: '9C',
      text: 'Essay: "<excellent>" & on time',
      date: '2025-10-06T13:20:00Z',
      badge: '4',
      state: 'unread',
    },
    {
      id: 'note-9',
      studentId: '2002',
      type: 'general',
      subjectId: null,
      classId: '9C',
      text: 'Parents evening on 20 October',
      date: '2025-10-11T15:00:00Z',
      badge: null,
      state: 'read',
    },
  ],
  absences: [
    { id: 'abs-1', studentId: '1001', date: '2025-10-02', type: 'full-day', reason: 'مريض', seen: false },
    { id: 'abs-2', studentId: '1001', date: '2025-10-09', type: 'late', reason: null, seen: false },
    { id: 'abs-3', studentId: '1002', date: '2025-10-03', type: 'full-day', reason: 'ظرف عائلي', seen: true },
    { id: 'abs-4', studentId: '2001', date: '2025-10-06', type: 'half-day', reason: 'Dentist appointment', seen: false },
    { id: 'abs-5', studentId: '2002', date: '2025-10-07', type: 'full-day', reason: 'Flu', seen: true },
  ],
};

/** Writes the demo data (an upsert, so loading it twice changes nothing). */
export function loadDemoData(store: DemoDataStore): Promise<DataSetCounts> {
  return store.writeDataSet(DEMO_DATA);
}
