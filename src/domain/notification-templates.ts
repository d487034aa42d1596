// Title and body of a push notification per TypeNotfication, in Arabic and
// English. `{name}` is the student's full name. The key `*` is the template
// of any type without its own; NOTIFICATION_TEMPLATES may override any key,
// and give a type's message options (message-options.ts).
import type { MessageOptions } from './message-options';

export interface LocalisedText {
  readonly title: string;
  readonly body: string;
}

export interface NotificationTemplate {
  readonly ar: LocalisedText;
  readonly en: LocalisedText;
  /** Over the built-in options of the type (DEFAULT_OPTIONS); the school's own come over these. */
  readonly options?: MessageOptions;
}

export const DEFAULT_TEMPLATES: Readonly<Record<string, NotificationTemplate>> = {
  absence: {
    ar: { title: 'غياب', body: 'تم تسجيل غياب للطالب {name}.' },
    en: { title: 'Absence', body: 'An absence was recorded for {name}.' },
  },
  note: {
    ar: { title: 'ملاحظة جديدة', body: 'لدى {name} ملاحظة جديدة من المدرسة.' },
    en: { title: 'New note', body: '{name} has a new note from school.' },
  },
  audit: {
    ar: { title: 'متابعة', body: 'تمت إضافة ملاحظة متابعة للطالب {name}.' },
    en: { title: 'Follow-up', body: 'A follow-up note was added for {name}.' },
  },
  mark: {
    ar: { title: 'علامات جديدة', body: 'صدرت علامات جديدة للطالب {name}.' },
    en: { title: 'New marks', body: 'New marks were published for {name}.' },
  },
  exam: {
    ar: { title: 'امتحان', body: 'موعد امتحان قادم للطالب {name}.' },
    en: { title: 'Exam', body: 'An exam is coming up for {name}.' },
  },
  general: {
    ar: { title: 'إشعار من المدرسة', body: 'رسالة جديدة من المدرسة بخصوص {name}.' },
    en: { title: 'School notice', body: 'A new message from school about {name}.' },
  },
};

const FALLBACK_KEY = '*';

/** Used for any TypeNotfication without a template of its own, unless the templates give `*`. */
const FALLBACK_TEMPLATE: NotificationTemplate = {
  ar: { title: 'إشعار جديد', body: 'لديك إشعار جديد من المدرسة بخصوص {name}.' },
  en: { title: 'New notification', body: 'There is a new notification from school about {name}.' },
};

export interface RenderedNotification {
  readonly title: string;
  readonly body: string;
  readonly ar: LocalisedText;
  readonly en: LocalisedText;
}

export function renderNotification(
  type: string,
  studentName: string,
  templates: Readonly<Record<string, NotificationTemplate>> = DEFAULT_TEMPLATES,
): RenderedNotification {
  const key = type.trim().toLowerCase();
  const template = Object.hasOwn(templates, key)
    ? templates[key]
    : Object.hasOwn(templates, FALLBACK_KEY)
      ? templates[FALLBACK_KEY]
      : FALLBACK_TEMPLATE;
  const fill = (text: string) => text.replaceAll('{name}', studentName);
  const ar = { title: fill(template.ar.title), body: fill(template.ar.body) };
  const en = { title: fill(template.en.title), body: fill(template.en.body) };
  // One notification carries both languages: Arabic first, as the apps' main audience reads it.
  return { title: `${ar.title} | ${en.title}`, body: `${ar.body}\n${en.body}`, ar, en };
}
