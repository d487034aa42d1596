// Stored values the console shows, in the page's language
// (docs/console.md#languages): notification, absence and note types
// (`absence`, `general`, `full-day`, ...), a note's state (`unread`,
// `read`), and the console's own audit operations (`console sign-in`). A
// value without a translation (a type a school made up) is shown as stored,
// isolated, since its direction may differ from the page's.
import { bdi, html, type Html } from '../shared/markup';
import type { Lang } from './i18n';
import type { View } from './view';

type Names = Readonly<Record<string, string>>;

const TYPES: Readonly<Record<Lang, Names>> = {
  en: {
    absence: 'Absence',
    note: 'Note',
    audit: 'Follow-up',
    mark: 'Marks',
    exam: 'Exam',
    general: 'General',
    'full-day': 'Full day',
    'part-day': 'Part of the day',
    late: 'Late',
    excused: 'Excused',
  },
  ar: {
    absence: 'غياب',
    note: 'ملاحظة',
    audit: 'متابعة',
    mark: 'علامات',
    exam: 'امتحان',
    general: 'عام',
    'full-day': 'يوم كامل',
    'part-day': 'جزء من اليوم',
    late: 'تأخّر',
    excused: 'بعذر',
  },
};

const NOTE_STATES: Readonly<Record<Lang, Names>> = {
  en: { unread: 'Unread', read: 'Read' },
  ar: { unread: 'غير مقروءة', read: 'مقروءة' },
};

const CONSOLE_ENDPOINT = 'لوحة التشغيل';

// The console's own operations in Arabic; in English they are shown by their names in the audit trail.
const OPERATIONS: Readonly<Record<'ar', Names>> = {
  ar: {
    'sign-in': 'تسجيل الدخول',
    'sign-out': 'تسجيل الخروج',
    'account-add': 'إضافة حساب',
    'account-update': 'تحديث حساب',
    'account-role': 'تغيير دور حساب',
    'account-disable': 'تعطيل حساب',
    'account-enable': 'تفعيل حساب',
    'account-remove': 'حذف حساب',
    'student-search': 'البحث عن طالب',
    student: 'صفحة طالب',
    'reveal-token': 'إظهار رمز الإشعارات',
    message: 'صفحة رسالة',
    resend: 'إعادة إرسال',
    'resend-dead': 'إعادة إرسال الرسائل الفاشلة',
    school: 'طلاب مدرسة',
    'student-edit': 'تعديل طالب',
    'school-edit': 'تعديل مدرسة',
    'device-edit': 'تعديل جهاز',
    'import-check': 'فحص ملف استيراد',
    'import-apply': 'تطبيق ملف استيراد',
    'import-report': 'تنزيل تقرير استيراد',
    messages: 'قائمة الرسائل',
    'messages-export': 'تنزيل قائمة الرسائل',
  },
};

const named = (names: Names, value: string): string => (Object.hasOwn(names, value) ? names[value] : value);

/** A notification's, an absence's or a note's type, translated where the console knows it. */
export const typeName = (view: View, value: string): string => named(TYPES[view.lang], value);

/** A note's state. */
export const noteStateName = (view: View, value: string): string => named(NOTE_STATES[view.lang], value);

/**
 * Where an audit entry was written: on an Arabic page the console's own
 * operations in Arabic; otherwise, and for the wire's (`soap
 * GetStudentSchool`), by their names in the audit trail, in code type, as
 * the operation filter takes them.
 */
export function auditWhere(view: View, endpoint: string, operation: string): Html {
  if (endpoint !== 'console' || view.lang === 'en') return bdi(`${endpoint} ${operation}`, 'code');
  return html`${CONSOLE_ENDPOINT}: ${bdi(named(OPERATIONS.ar, operation))}`;
}

/**
 * A message id shortened for a list: its last 8 characters. Push ids are
 * time-ordered (a UUID of version 7, src/store/outbox/time-ordered-id.ts),
 * so their first characters are the same for every message queued in the
 * same moments; the end is random, as it is in every other id.
 */
export function shortMessageId(id: string): string {
  return id.slice(-8);
}
