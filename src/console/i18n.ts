// The console's two languages (docs/console.md#languages). English and
// Arabic, chosen by a link that sets a cookie, else by Accept-Language.
// Arabic pages are right to left; their numbers use Western digits, like the
// ids and tokens beside them, which are copied into other systems.
import type { IncomingHttpHeaders } from 'node:http';

export type Lang = 'en' | 'ar';
export const LANG_COOKIE = 'sns_console_lang';

const en = {
  dir: 'ltr',
  locale: 'en-GB',
  otherLang: 'ar' as Lang,
  otherLangName: 'العربية',
  appName: 'Student notifications',
  consoleName: 'Console',
  skip: 'Skip to main content',
  mainNav: 'Main',
  navOverview: 'Overview',
  navStudents: 'Students',
  navAccounts: 'Accounts',
  signedInAs: 'Signed in as',
  signIn: 'Sign in',
  signInTitle: 'Sign in to the console',
  userName: 'User name',
  password: 'Password',
  signOut: 'Sign out',
  signInFailed: 'The user name or the password is not right.',
  signInMissing: 'Enter your user name and your password.',
  signInThrottled: (seconds: number) => `Too many failed attempts. Try again in ${seconds} seconds.`,
  busy: 'The service is busy checking passwords. Try again in a moment.',
  sessionEnded: 'Your session ended. Sign in again.',
  signedOut: 'You are signed out.',
  problem: 'There is a problem',
  forbiddenTitle: 'Not allowed',
  forbiddenText: 'Your role does not allow this action.',
  csrfTitle: 'This form has expired',
  csrfText: 'Nothing was changed. Go back, reload the page and try again.',
  notFoundTitle: 'Page not found',
  notFoundText: 'There is nothing at this address.',
  back: 'Back',
  role: { viewer: 'Viewer', operator: 'Operator', admin: 'Administrator' },
  // Overview
  overviewTitle: 'Overview',
  deliveryNow: 'Delivery now',
  channel: { push: 'Push notifications', sms: 'Text messages (login codes)' },
  status: {
    queued: 'Queued',
    sending: 'In flight',
    sent: 'Sent',
    failed: 'Retrying',
    dead: 'Dead',
    uncertain: 'Uncertain',
  },
  oldestDue: 'Oldest due message has waited',
  nothingDue: 'Nothing is waiting to be sent.',
  chartHour: 'Sent and failed per minute, last hour',
  chartWeek: 'Sent and failed per hour, last 7 days',
  sent: 'Sent',
  failed: 'Failed',
  chartSummary: (sent: string, failed: string) => `${sent} sent and ${failed} failed in this period.`,
  errorsTitle: 'Most frequent provider errors, last 24 hours',
  noErrors: 'No errors in the last 24 hours.',
  colChannel: 'Channel',
  colError: 'Error',
  colCount: 'Messages',
  workersTitle: 'Delivery workers',
  colWorker: 'Worker',
  colStarted: 'Started',
  colLastHeard: 'Last heard from',
  colState: 'State',
  workerAlive: 'Working',
  workerSilent: 'Not responding',
  noWorkers: 'No delivery worker has reported in the last minute: nothing is being sent.',
  ago: (duration: string) => `${duration} ago`,
  // Accounts
  accountsTitle: 'Accounts',
  addAccount: 'Add an account',
  passwordRule: 'At least 12 characters.',
  add: 'Add',
  colName: 'Name',
  colRole: 'Role',
  colAccountState: 'State',
  colActions: 'Actions',
  active: 'Active',
  disabled: 'Disabled',
  disable: 'Disable',
  enable: 'Enable',
  remove: 'Remove',
  changeRole: 'Change role',
  save: 'Save',
  accountAdded: (name: string) => `Account ${name} added.`,
  accountUpdated: (name: string) => `Account ${name} already existed: its password and role were replaced.`,
  accountChanged: (name: string) => `Account ${name} changed; its sessions were ended.`,
  accountRemoved: (name: string) => `Account ${name} removed.`,
  accountMissing: 'There is no such account.',
  ownAccount: 'You cannot change or remove your own account here.',
  nameRule: 'A user name has 1 to 64 letters, digits, dots, dashes or underscores.',
  passwordTooShort: 'The password must have at least 12 characters.',
  confirmRemove: (name: string) => `Remove the account ${name}? Its sessions end at once.`,
  yesRemove: 'Yes, remove it',
  cancel: 'Cancel',
  // One message
  messageTitle: 'Message',
  colChannelName: 'Channel',
  colNextAttempt: 'Next attempt',
  attemptsTitle: 'Attempts',
  noAttempts: 'No attempt has finished yet.',
  colAttempt: 'Attempt',
  colTime: 'Time',
  colOutcome: 'Outcome',
  colCode: 'Provider answer',
  outcome: { sent: 'Sent', failed: 'Failed, retried', dead: 'Failed, given up', uncertain: 'Uncertain' } as Readonly<
    Record<string, string>
  >,
  resend: 'Resend',
  confirmResend: 'Put this message back in the queue, to be sent now with its attempts counted from zero?',
  yesResend: 'Yes, resend it',
  resent: 'The message is queued again; this page shows it sent once a worker has delivered it.',
  resendRefused: {
    not_found: 'There is no such message.',
    not_dead: 'Only a dead or retrying message can be resent.',
    code_erased: 'This login code was erased; the parent must ask for a new code.',
  } as Readonly<Record<string, string>>,
  messageMissing: 'There is no such message.',
  details: 'Details',
  // Dead letters
  navDead: 'Dead letters',
  deadTitle: 'Dead letters',
  deadErrorsTitle: 'What they died of',
  allErrors: 'All errors',
  resendAll: (n: string) => `Resend all ${n}`,
  confirmResendAll: (n: string) => `Put these ${n} dead messages back in the queue, to be sent now?`,
  resentAll: (n: string) => `${n} messages are queued again.`,
  noDead: 'No dead messages.',
  colGivenUp: 'Given up',
  colStudent: 'Student',
  colMessage: 'Message',
  shown: (n: string, total: string) => `${n} of ${total} shown, the latest first.`,
  // Students
  studentsTitle: 'Find a student',
  searchStudents: 'Search students',
  searchHint: 'A student id, or any part of the name.',
  search: 'Search',
  found: (n: string) => `${n} students found.`,
  noneFound: 'No student matches.',
  previous: 'Previous',
  next: 'Next',
  pageOf: (page: string, pages: string) => `Page ${page} of ${pages}`,
  colId: 'Id',
  colSchool: 'School',
  colClass: 'Class',
  colActive: 'Active',
  yes: 'Yes',
  no: 'No',
  studentTitle: (name: string) => `Student ${name}`,
  studentMissing: 'There is no student with this id.',
  device: 'Device',
  platform: 'Platform',
  pushToken: 'Push token',
  noDevice: 'No device registered: the parents have not opened the app on a phone yet.',
  noToken: 'The device has no push token: the app must be opened again on the phone.',
  reveal: 'Reveal',
  tokenRevealed: 'The full token is shown once; this was recorded in the audit trail.',
  notifications: 'Notifications, newest first',
  noNotifications: 'No notifications.',
  colType: 'Type',
  colQueued: 'Queued',
  colStatus: 'Status',
  colAttempts: 'Attempts',
  colLastError: 'Last error',
  colSentAt: 'Sent',
  absences: 'Absences',
  noAbsences: 'No absences.',
  colDate: 'Date',
  colReason: 'Reason',
  colSeen: 'Seen by the parents',
  notes: 'Notes',
  noNotes: 'No notes.',
  colText: 'Text',
  plainError: {
    no_token: 'The phone had no push token: the parents must open the app again.',
    unregistered:
      'The app is no longer registered on this phone (removed, or not opened for a long time): the parents must open the app again.',
    exhausted: 'Every attempt failed; delivery gave up.',
    uncertain: 'The provider may have received it; it was not sent again to avoid a duplicate.',
    provider: 'The provider refused or did not answer.',
  },
};

export type Messages = typeof en;

const ar: Messages = {
  dir: 'rtl',
  locale: 'ar-u-nu-latn',
  otherLang: 'en',
  otherLangName: 'English',
  appName: 'إشعارات الطلاب',
  consoleName: 'لوحة التشغيل',
  skip: 'انتقل إلى المحتوى الرئيسي',
  mainNav: 'القائمة الرئيسية',
  navOverview: 'نظرة عامة',
  navStudents: 'الطلاب',
  navAccounts: 'الحسابات',
  signedInAs: 'مسجّل الدخول باسم',
  signIn: 'تسجيل الدخول',
  signInTitle: 'تسجيل الدخول إلى لوحة التشغيل',
  userName: 'اسم المستخدم',
  password: 'كلمة المرور',
  signOut: 'تسجيل الخروج',
  signInFailed: 'اسم المستخدم أو كلمة المرور غير صحيحة.',
  signInMissing: 'أدخل اسم المستخدم وكلمة المرور.',
  signInThrottled: (seconds: number) => `محاولات فاشلة كثيرة. حاول مرة أخرى بعد ${seconds} ثانية.`,
  busy: 'الخدمة مشغولة بالتحقق من كلمات المرور. حاول مرة أخرى بعد قليل.',
  sessionEnded: 'انتهت جلستك. سجّل الدخول مرة أخرى.',
  signedOut: 'تم تسجيل خروجك.',
  problem: 'هناك مشكلة',
  forbiddenTitle: 'غير مسموح',
  forbiddenText: 'دورك لا يسمح بهذا الإجراء.',
  csrfTitle: 'انتهت صلاحية هذا النموذج',
  csrfText: 'لم يتغيّر شيء. ارجع وأعد تحميل الصفحة ثم حاول مرة أخرى.',
  notFoundTitle: 'الصفحة غير موجودة',
  notFoundText: 'لا يوجد شيء على هذا العنوان.',
  back: 'رجوع',
  role: { viewer: 'مُطّلع', operator: 'مشغّل', admin: 'مسؤول' },
  overviewTitle: 'نظرة عامة',
  deliveryNow: 'حالة الإرسال الآن',
  channel: { push: 'الإشعارات الفورية', sms: 'الرسائل النصية (رموز الدخول)' },
  status: {
    queued: 'في الانتظار',
    sending: 'قيد الإرسال',
    sent: 'أُرسلت',
    failed: 'تُعاد محاولتها',
    dead: 'فشلت نهائيًا',
    uncertain: 'غير مؤكدة',
  },
  oldestDue: 'أقدم رسالة مستحقة تنتظر منذ',
  nothingDue: 'لا توجد رسائل تنتظر الإرسال.',
  chartHour: 'المرسلة والفاشلة في كل دقيقة خلال الساعة الأخيرة',
  chartWeek: 'المرسلة والفاشلة في كل ساعة خلال الأيام السبعة الأخيرة',
  sent: 'أُرسلت',
  failed: 'فشلت',
  chartSummary: (sent: string, failed: string) => `أُرسلت ${sent} وفشلت ${failed} في هذه الفترة.`,
  errorsTitle: 'أكثر أخطاء مزوّدي الخدمة تكرارًا خلال آخر 24 ساعة',
  noErrors: 'لا توجد أخطاء خلال آخر 24 ساعة.',
  colChannel: 'القناة',
  colError: 'الخطأ',
  colCount: 'عدد الرسائل',
  workersTitle: 'معالجات الإرسال',
  colWorker: 'المعالج',
  colStarted: 'بدأ العمل',
  colLastHeard: 'آخر إشارة منه',
  colState: 'الحالة',
  workerAlive: 'يعمل',
  workerSilent: 'لا يستجيب',
  noWorkers: 'لم يُبلغ أي معالج إرسال عن نفسه خلال الدقيقة الأخيرة: لا يُرسَل شيء الآن.',
  ago: (duration: string) => `قبل ${duration}`,
  accountsTitle: 'الحسابات',
  addAccount: 'إضافة حساب',
  passwordRule: '12 حرفًا على الأقل.',
  add: 'إضافة',
  colName: 'الاسم',
  colRole: 'الدور',
  colAccountState: 'الحالة',
  colActions: 'الإجراءات',
  active: 'فعّال',
  disabled: 'معطّل',
  disable: 'تعطيل',
  enable: 'تفعيل',
  remove: 'حذف',
  changeRole: 'تغيير الدور',
  save: 'حفظ',
  accountAdded: (name: string) => `أُضيف الحساب ${name}.`,
  accountUpdated: (name: string) => `الحساب ${name} موجود من قبل: استُبدلت كلمة مروره ودوره.`,
  accountChanged: (name: string) => `تغيّر الحساب ${name} وأُنهيت جلساته.`,
  accountRemoved: (name: string) => `حُذف الحساب ${name}.`,
  accountMissing: 'لا يوجد حساب بهذا الاسم.',
  ownAccount: 'لا يمكنك تغيير حسابك أو حذفه من هنا.',
  nameRule: 'اسم المستخدم من 1 إلى 64 حرفًا لاتينيًا أو رقمًا أو نقطة أو شرطة.',
  passwordTooShort: 'يجب ألا تقل كلمة المرور عن 12 حرفًا.',
  confirmRemove: (name: string) => `هل تريد حذف الحساب ${name}؟ تنتهي جلساته فورًا.`,
  yesRemove: 'نعم، احذفه',
  cancel: 'إلغاء',
  messageTitle: 'رسالة',
  colChannelName: 'القناة',
  colNextAttempt: 'المحاولة التالية',
  attemptsTitle: 'المحاولات',
  noAttempts: 'لم تنتهِ أي محاولة بعد.',
  colAttempt: 'المحاولة',
  colTime: 'الوقت',
  colOutcome: 'النتيجة',
  colCode: 'ردّ مزوّد الخدمة',
  outcome: { sent: 'أُرسلت', failed: 'فشلت وستُعاد', dead: 'فشلت نهائيًا', uncertain: 'غير مؤكدة' },
  resend: 'إعادة الإرسال',
  confirmResend: 'هل تريد إعادة هذه الرسالة إلى قائمة الانتظار لتُرسل الآن مع تصفير عدد محاولاتها؟',
  yesResend: 'نعم، أعد إرسالها',
  resent: 'عادت الرسالة إلى قائمة الانتظار؛ ستظهر هذه الصفحة أنها أُرسلت بعد أن يسلّمها معالج الإرسال.',
  resendRefused: {
    not_found: 'لا توجد رسالة بهذا الرقم.',
    not_dead: 'لا يمكن إعادة إرسال إلا رسالة فشلت نهائيًا أو تُعاد محاولتها.',
    code_erased: 'مُسح رمز الدخول هذا؛ يجب أن يطلب الأهل رمزًا جديدًا.',
  },
  messageMissing: 'لا توجد رسالة بهذا الرقم.',
  details: 'التفاصيل',
  navDead: 'الرسائل الفاشلة',
  deadTitle: 'الرسائل الفاشلة نهائيًا',
  deadErrorsTitle: 'أسباب الفشل',
  allErrors: 'كل الأخطاء',
  resendAll: (n: string) => `إعادة إرسالها كلها (${n})`,
  confirmResendAll: (n: string) => `هل تريد إعادة هذه الرسائل الفاشلة (${n}) إلى قائمة الانتظار لتُرسل الآن؟`,
  resentAll: (n: string) => `عادت ${n} رسالة إلى قائمة الانتظار.`,
  noDead: 'لا توجد رسائل فاشلة نهائيًا.',
  colGivenUp: 'وقت التوقف',
  colStudent: 'الطالب',
  colMessage: 'الرسالة',
  shown: (n: string, total: string) => `تظهر ${n} من ${total}، الأحدث أولًا.`,
  studentsTitle: 'البحث عن طالب',
  searchStudents: 'ابحث عن الطلاب',
  searchHint: 'رقم الطالب أو أي جزء من الاسم.',
  search: 'بحث',
  found: (n: string) => `عدد الطلاب المطابقين: ${n}.`,
  noneFound: 'لا يوجد طالب مطابق.',
  previous: 'السابق',
  next: 'التالي',
  pageOf: (page: string, pages: string) => `الصفحة ${page} من ${pages}`,
  colId: 'الرقم',
  colSchool: 'المدرسة',
  colClass: 'الصف',
  colActive: 'نشط',
  yes: 'نعم',
  no: 'لا',
  studentTitle: (name: string) => `الطالب ${name}`,
  studentMissing: 'لا يوجد طالب بهذا الرقم.',
  device: 'الجهاز',
  platform: 'نظام التشغيل',
  pushToken: 'رمز الإشعارات',
  noDevice: 'لا يوجد جهاز مسجّل: لم يفتح الأهل التطبيق على الهاتف بعد.',
  noToken: 'لا يملك الجهاز رمز إشعارات: يجب فتح التطبيق على الهاتف مرة أخرى.',
  reveal: 'إظهار',
  tokenRevealed: 'يظهر الرمز كاملًا هذه المرة فقط، وقد سُجّل ذلك في سجل التدقيق.',
  notifications: 'الإشعارات، الأحدث أولًا',
  noNotifications: 'لا توجد إشعارات.',
  colType: 'النوع',
  colQueued: 'وقت الإدراج',
  colStatus: 'الحالة',
  colAttempts: 'المحاولات',
  colLastError: 'آخر خطأ',
  colSentAt: 'وقت الإرسال',
  absences: 'الغياب',
  noAbsences: 'لا يوجد غياب.',
  colDate: 'التاريخ',
  colReason: 'السبب',
  colSeen: 'اطّلع عليه الأهل',
  notes: 'الملاحظات',
  noNotes: 'لا توجد ملاحظات.',
  colText: 'النص',
  plainError: {
    no_token: 'لم يكن لدى الهاتف رمز إشعارات: يجب أن يفتح الأهل التطبيق مرة أخرى.',
    unregistered:
      'لم يعد التطبيق مسجّلًا على هذا الهاتف (حُذف أو لم يُفتح منذ مدة طويلة): يجب أن يفتح الأهل التطبيق مرة أخرى.',
    exhausted: 'فشلت كل المحاولات وتوقّف الإرسال.',
    uncertain: 'ربما استلمه مزوّد الخدمة؛ لم يُرسل مرة أخرى تجنّبًا للتكرار.',
    provider: 'رفض مزوّد الخدمة الرسالة أو لم يُجب.',
  },
};

export const MESSAGES: Readonly<Record<Lang, Messages>> = { en, ar };

/** The cookie's language, else the first of ours in Accept-Language, else English. */
export function chooseLang(cookies: ReadonlyMap<string, string>, headers: IncomingHttpHeaders): Lang {
  const chosen = cookies.get(LANG_COOKIE);
  if (chosen === 'ar' || chosen === 'en') return chosen;
  const accept = headers['accept-language'];
  if (typeof accept !== 'string') return 'en';
  const ranked = accept
    .slice(0, 200)
    .split(',')
    .map((part, index) => {
      const [tag = '', ...params] = part.trim().split(';');
      const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
      return { tag: tag.toLowerCase(), q: q === undefined ? 1 : Number(q), index };
    })
    .filter((entry) => entry.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index);
  for (const { tag } of ranked) {
    if (tag === 'ar' || tag.startsWith('ar-')) return 'ar';
    if (tag === 'en' || tag.startsWith('en-')) return 'en';
  }
  return 'en';
}

export interface Formats {
  number(value: number): string;
  /** An ISO time as a date and time in UTC, in the page's language. */
  time(iso: string | null): string;
  /** A length of time in its largest whole unit or two: `3 minutes`, `2 hours 5 minutes`. */
  duration(ms: number): string;
}

export function formatsFor(messages: Messages): Formats {
  const numbers = new Intl.NumberFormat(messages.locale);
  const times = new Intl.DateTimeFormat(messages.locale, {
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
    timeZone: 'UTC',
  });
  const unit = (name: 'second' | 'minute' | 'hour' | 'day', n: number) =>
    new Intl.NumberFormat(messages.locale, { style: 'unit', unit: name, unitDisplay: 'long' }).format(n);
  return {
    number: (value) => numbers.format(value),
    time: (iso) => {
      if (iso === null) return '–';
      const at = new Date(iso);
      return Number.isNaN(at.getTime()) ? iso : `${times.format(at)} UTC`;
    },
    duration: (ms) => {
      const seconds = Math.max(0, Math.floor(ms / 1000));
      if (seconds < 60) return unit('second', seconds);
      const minutes = Math.floor(seconds / 60);
      if (minutes < 60) return unit('minute', minutes);
      const hours = Math.floor(minutes / 60);
      if (hours < 48)
        return minutes % 60 === 0 ? unit('hour', hours) : `${unit('hour', hours)} ${unit('minute', minutes % 60)}`;
      return unit('day', Math.floor(hours / 24));
    },
  };
}
