// What a provider's answer means for the people around a message
// (docs/console.md#explanations): per channel and answer code (FCM's error
// codes, the push webhook's and the SMS gateway's HTTP statuses, Twilio's
// error numbers, timeouts), what happened, who must act (the parents, the
// school, us, the provider) and what to do, in English and Arabic. One table,
// read by the console's student page, message page and dead letters, which
// group by its keys; next to the worker's own reading of the same answers
// (src/delivery/push/fcm/fcm-error.ts, src/delivery/http/http-call.ts).
import type { OutboxChannel } from './outbox-channel';

/** Who can make the next attempt work. `nobody`: the service tries again by itself. */
export type WhoActs = 'parents' | 'school' | 'us' | 'provider' | 'nobody';

export interface ExplanationText {
  /** What happened, in plain words. */
  readonly what: string;
  /** What to do, and who does it. */
  readonly todo: string;
}

export interface Explanation {
  /** Stable, for grouping and links: `push-token-gone`, `sms-not-mobile`, … */
  readonly key: string;
  readonly who: WhoActs;
  /**
   * Sending the message again as it is would fail the same way: what `todo`
   * names must change first (a new token, another number, our settings).
   */
  readonly permanent: boolean;
  readonly en: ExplanationText;
  readonly ar: ExplanationText;
}

const entry = (
  key: string,
  who: WhoActs,
  permanent: boolean,
  en: [string, string],
  ar: [string, string],
): Explanation => ({
  key,
  who,
  permanent,
  en: { what: en[0], todo: en[1] },
  ar: { what: ar[0], todo: ar[1] },
});

const TOKEN_GONE = entry(
  'push-token-gone',
  'parents',
  true,
  [
    'The app is no longer registered on this phone (it was removed, or not opened for a long time), so the push token is no longer valid.',
    'The parents must open the app on the phone (or install it again) so that it registers a new token; a resend before that fails the same way.',
  ],
  [
    'لم يعد التطبيق مسجلًا على هذا الهاتف (حُذف أو لم يُفتح منذ مدة طويلة)، فلم يعد رمز الإشعارات صالحًا.',
    'يجب أن يفتح الأهل التطبيق على الهاتف (أو يثبّتوه من جديد) ليسجّل رمزًا جديدًا؛ وإعادة الإرسال قبل ذلك تفشل بالطريقة نفسها.',
  ],
);

const NO_TOKEN = entry(
  'push-no-token',
  'parents',
  true,
  [
    'The phone had no push token: the app has not registered for notifications on it.',
    'The parents must open the app and allow notifications; a resend before that fails the same way.',
  ],
  [
    'لم يكن لدى الهاتف رمز إشعارات: لم يسجّل التطبيق نفسه لتلقي الإشعارات عليه.',
    'يجب أن يفتح الأهل التطبيق ويسمحوا بالإشعارات؛ وإعادة الإرسال قبل ذلك تفشل بالطريقة نفسها.',
  ],
);

const PUSH_INVALID = entry(
  'push-invalid',
  'us',
  true,
  [
    'The push service refused the message as malformed, or the stored token is not a valid token.',
    'We check the device’s token on the student’s page (if it is wrong, the parents open the app again) and the message’s fields; a resend as it is fails the same way.',
  ],
  [
    'رفضت خدمة الإشعارات الرسالة لأنها غير سليمة، أو أن الرمز المخزّن ليس رمزًا صالحًا.',
    'نتحقق من رمز الجهاز في صفحة الطالب (وإن كان خاطئًا يفتح الأهل التطبيق من جديد) ومن حقول الرسالة؛ وإعادة الإرسال كما هي تفشل بالطريقة نفسها.',
  ],
);

const SENDER_MISMATCH = entry(
  'push-sender-mismatch',
  'us',
  true,
  [
    'The token belongs to another Firebase project than the one the service sends with.',
    'We check that FCM_PROJECT_ID and the service account match the project the app is built with; then resend.',
  ],
  [
    'ينتمي الرمز إلى مشروع Firebase غير الذي ترسل به الخدمة.',
    'نتحقق من أن FCM_PROJECT_ID وحساب الخدمة يطابقان المشروع الذي بُني به التطبيق؛ ثم نعيد الإرسال.',
  ],
);

// A school naming an FCM project that is no longer configured (docs/delivery.md#fcm-credentials).
const FCM_PROJECT_UNKNOWN = entry(
  'push-fcm-project-unknown',
  'us',
  true,
  [
    "The school's app is set to an FCM project that the service no longer has in its settings, so the message could not be sent.",
    "We add the project back to FCM_PROJECTS, or set the school's FCM project to one configured (the school's edit page or the admin API); then resend.",
  ],
  [
    'تطبيق المدرسة مضبوط على مشروع FCM لم يعد في إعدادات الخدمة، فلم يمكن إرسال الرسالة.',
    'نعيد المشروع إلى FCM_PROJECTS، أو نضبط مشروع FCM للمدرسة على مشروع مُعَدّ (صفحة تعديل المدرسة أو واجهة الإدارة)؛ ثم نعيد الإرسال.',
  ],
);

const APNS_AUTH = entry(
  'push-apns-auth',
  'us',
  true,
  [
    'Apple’s push service refused Firebase’s credentials for iPhones (the APNs key or certificate in the Firebase project is missing or expired).',
    'We upload a valid APNs key in the Firebase project’s settings; then resend.',
  ],
  [
    'رفضت خدمة إشعارات Apple بيانات اعتماد Firebase لأجهزة iPhone (مفتاح APNs أو شهادته في مشروع Firebase مفقود أو منتهٍ).',
    'نرفع مفتاح APNs صالحًا في إعدادات مشروع Firebase؛ ثم نعيد الإرسال.',
  ],
);

const OUR_CREDENTIALS = entry(
  'credentials',
  'us',
  true,
  [
    'The provider refused the service’s credentials (HTTP 401 or 403).',
    'We check the provider’s key or token in the service’s settings; then resend.',
  ],
  [
    'رفض المزوّد بيانات اعتماد الخدمة (HTTP 401 أو 403).',
    'نتحقق من مفتاح المزوّد أو رمزه في إعدادات الخدمة؛ ثم نعيد الإرسال.',
  ],
);

const WRONG_ADDRESS = entry(
  'provider-not-found',
  'us',
  true,
  [
    'The provider answered 404: the address the service sends to is wrong, or the gateway does not know this recipient.',
    'We check the provider’s address in the service’s settings (PUSH_WEBHOOK_URL, SMS_HTTP_URL); then resend.',
  ],
  [
    'أجاب المزوّد بالرمز 404: العنوان الذي ترسل إليه الخدمة خاطئ، أو أن البوابة لا تعرف هذا المستلم.',
    'نتحقق من عنوان المزوّد في إعدادات الخدمة (PUSH_WEBHOOK_URL و SMS_HTTP_URL)؛ ثم نعيد الإرسال.',
  ],
);

const PUSH_REFUSED = entry(
  'push-refused',
  'us',
  true,
  [
    'The push gateway refused the message (HTTP 400): it did not accept what was sent.',
    'We look at the gateway’s answer below and fix what it names; a resend as it is fails the same way.',
  ],
  [
    'رفضت بوابة الإشعارات الرسالة (HTTP 400): لم تقبل ما أُرسل إليها.',
    'ننظر في جواب البوابة أدناه ونصلح ما يذكره؛ وإعادة الإرسال كما هي تفشل بالطريقة نفسها.',
  ],
);

const SLOW_DOWN = entry(
  'rate-limited',
  'nobody',
  false,
  [
    'The provider asked the service to slow down (too many messages at once, or a quota reached).',
    'Nothing: the service waits and tries again by itself. If it lasts, we ask the provider for a higher quota.',
  ],
  [
    'طلب المزوّد من الخدمة أن تبطئ (رسائل كثيرة في وقت واحد، أو بلوغ الحصة).',
    'لا شيء: تنتظر الخدمة ثم تعيد المحاولة بنفسها. وإن استمر ذلك نطلب من المزوّد حصة أكبر.',
  ],
);

const PROVIDER_DOWN = entry(
  'provider-unavailable',
  'provider',
  false,
  [
    'The provider had a fault or was unavailable (a 5xx answer, UNAVAILABLE or INTERNAL).',
    'Nothing at first: the service tries again by itself. If it gave up, resend once the provider works again (its status page says).',
  ],
  [
    'حدث عطل لدى المزوّد أو لم يكن متاحًا (جواب 5xx أو UNAVAILABLE أو INTERNAL).',
    'لا شيء في البداية: تعيد الخدمة المحاولة بنفسها. وإن توقفت، نعيد الإرسال حين يعود المزوّد إلى العمل (كما تقول صفحة حالته).',
  ],
);

const NO_ANSWER = entry(
  'no-answer',
  'provider',
  false,
  [
    'The provider did not answer in time, or could not be reached.',
    'Nothing at first: the service tries again by itself. If it gave up, we check the network to the provider, then resend.',
  ],
  [
    'لم يُجب المزوّد في الوقت المحدد، أو تعذّر الوصول إليه.',
    'لا شيء في البداية: تعيد الخدمة المحاولة بنفسها. وإن توقفت، نتحقق من الشبكة إلى المزوّد ثم نعيد الإرسال.',
  ],
);

const UNCERTAIN = entry(
  'uncertain',
  'parents',
  false,
  [
    'The provider may have received the message, but no answer came back; it was not sent again, to avoid sending it twice.',
    'Ask the parents whether it arrived; if not, they ask for a new code in the app (or an operator resends it).',
  ],
  [
    'ربما تلقى المزوّد الرسالة لكن لم يصل أي جواب؛ ولم تُرسل مرة أخرى تجنبًا لإرسالها مرتين.',
    'اسأل الأهل إن كانت قد وصلت؛ وإن لم تصل يطلبون رمزًا جديدًا في التطبيق (أو يعيد أحد المشغّلين إرسالها).',
  ],
);

const CODE_EXPIRED = entry(
  'sms-expired',
  'parents',
  true,
  [
    'The login code would have expired before the next attempt, so it was not sent.',
    'The parents ask for a new code in the app; this one cannot be sent again.',
  ],
  [
    'كان رمز الدخول سينتهي قبل المحاولة التالية، فلم يُرسل.',
    'يطلب الأهل رمزًا جديدًا في التطبيق؛ ولا يمكن إرسال هذا الرمز مرة أخرى.',
  ],
);

const SMS_REFUSED = entry(
  'sms-refused',
  'parents',
  true,
  [
    'The SMS gateway refused the message (HTTP 400), most often because it cannot send to this phone number.',
    'Check the number with the parents; they ask for a new code with the right mobile number.',
  ],
  [
    'رفضت بوابة الرسائل القصيرة الرسالة (HTTP 400)، وغالبًا لأنها لا تستطيع الإرسال إلى هذا الرقم.',
    'تحقق من الرقم مع الأهل؛ ثم يطلبون رمزًا جديدًا بالرقم الصحيح للجوال.',
  ],
);

const SMS_NUMBER_GONE = entry(
  'sms-number-gone',
  'parents',
  true,
  [
    'The SMS gateway says this number can no longer receive messages (HTTP 410).',
    'The parents ask for a new code with a mobile number in use.',
  ],
  [
    'تقول بوابة الرسائل القصيرة إن هذا الرقم لم يعد يستقبل الرسائل (HTTP 410).',
    'يطلب الأهل رمزًا جديدًا برقم جوال مستخدم.',
  ],
);

const INVALID_NUMBER = entry(
  'sms-invalid-number',
  'parents',
  true,
  [
    'The phone number is not a valid number (Twilio 21211, or the number does not exist: 30005).',
    'Check the number with the parents; they ask for a new code with the right number.',
  ],
  [
    'رقم الهاتف ليس رقمًا صالحًا (Twilio 21211، أو أن الرقم غير موجود: 30005).',
    'تحقق من الرقم مع الأهل؛ ثم يطلبون رمزًا جديدًا بالرقم الصحيح.',
  ],
);

const NOT_MOBILE = entry(
  'sms-not-mobile',
  'parents',
  true,
  [
    'The number is a landline or cannot receive text messages (Twilio 21614 or 30006).',
    'The parents ask for a new code with a mobile number.',
  ],
  ['الرقم هاتف أرضي أو لا يستقبل الرسائل النصية (Twilio 21614 أو 30006).', 'يطلب الأهل رمزًا جديدًا برقم جوال.'],
);

const UNSUBSCRIBED = entry(
  'sms-unsubscribed',
  'parents',
  true,
  [
    'The phone’s owner replied STOP to our messages: the provider sends them nothing more (Twilio 21610).',
    'The parents send START from that phone to the service’s number, then ask for a new code.',
  ],
  [
    'ردّ صاحب الهاتف على رسائلنا بكلمة STOP، فلم يعد المزوّد يرسل إليه شيئًا (Twilio 21610).',
    'يرسل الأهل كلمة START من ذلك الهاتف إلى رقم الخدمة، ثم يطلبون رمزًا جديدًا.',
  ],
);

const UNREACHABLE = entry(
  'sms-unreachable',
  'parents',
  false,
  [
    'The phone was switched off or out of coverage (Twilio 30003).',
    'The parents switch the phone on where it has a signal, then ask for a new code.',
  ],
  ['كان الهاتف مغلقًا أو خارج التغطية (Twilio 30003).', 'يشغّل الأهل الهاتف في مكان فيه إشارة، ثم يطلبون رمزًا جديدًا.'],
);

const FILTERED = entry(
  'sms-filtered',
  'us',
  true,
  [
    'The phone company blocked the message as unwanted (Twilio 30007).',
    'We register the sender (name or number) with the provider for this country; then the parents ask for a new code.',
  ],
  [
    'حجبت شركة الاتصالات الرسالة باعتبارها غير مرغوب فيها (Twilio 30007).',
    'نسجّل اسم المرسل أو رقمه لدى المزوّد لهذا البلد؛ ثم يطلب الأهل رمزًا جديدًا.',
  ],
);

const OUR_FAULT = entry(
  'service-fault',
  'us',
  false,
  [
    'The service failed while sending (its worker stopped mid-send, or the provider’s library failed).',
    'We look at the service’s log around that time; then resend.',
  ],
  [
    'تعطّلت الخدمة أثناء الإرسال (توقف العامل في منتصف الإرسال، أو فشلت مكتبة المزوّد).',
    'ننظر في سجل الخدمة حول ذلك الوقت؛ ثم نعيد الإرسال.',
  ],
);

const UNKNOWN = entry(
  'other',
  'us',
  false,
  [
    'The provider refused the message with an answer this table does not know.',
    'We read the provider’s answer below and its documentation for that code.',
  ],
  ['رفض المزوّد الرسالة بجواب لا يعرفه هذا الجدول.', 'نقرأ جواب المزوّد أدناه ووثائقه الخاصة بذلك الرمز.'],
);

/** Every explanation, for the docs and the tests: each key once. */
export const EXPLANATIONS: readonly Explanation[] = [
  NO_TOKEN,
  TOKEN_GONE,
  PUSH_INVALID,
  SENDER_MISMATCH,
  FCM_PROJECT_UNKNOWN,
  APNS_AUTH,
  PUSH_REFUSED,
  OUR_CREDENTIALS,
  WRONG_ADDRESS,
  SLOW_DOWN,
  PROVIDER_DOWN,
  NO_ANSWER,
  UNCERTAIN,
  CODE_EXPIRED,
  SMS_REFUSED,
  SMS_NUMBER_GONE,
  INVALID_NUMBER,
  NOT_MOBILE,
  UNSUBSCRIBED,
  UNREACHABLE,
  FILTERED,
  OUR_FAULT,
  UNKNOWN,
];

const BOTH: Readonly<Record<string, Explanation>> = {
  QUOTA_EXCEEDED: SLOW_DOWN,
  UNAVAILABLE: PROVIDER_DOWN,
  INTERNAL: PROVIDER_DOWN,
  UNAUTHENTICATED: OUR_CREDENTIALS,
  PERMISSION_DENIED: OUR_CREDENTIALS,
  oauth_unavailable: OUR_CREDENTIALS,
  http_401: OUR_CREDENTIALS,
  http_403: OUR_CREDENTIALS,
  http_404: WRONG_ADDRESS,
  http_408: NO_ANSWER,
  http_429: SLOW_DOWN,
  timeout: NO_ANSWER,
  connection: NO_ANSWER,
  bad_url: WRONG_ADDRESS,
  provider_error: OUR_FAULT,
  worker_stopped: UNCERTAIN,
  attempts_exhausted: OUR_FAULT,
};

/** Per channel, the provider's answer code (as the worker stores it) to its explanation. */
const BY_CODE: Readonly<Record<OutboxChannel, Readonly<Record<string, Explanation>>>> = {
  push: {
    ...BOTH,
    no_token: NO_TOKEN,
    UNREGISTERED: TOKEN_GONE,
    NOT_FOUND: TOKEN_GONE,
    INVALID_ARGUMENT: PUSH_INVALID,
    SENDER_ID_MISMATCH: SENDER_MISMATCH,
    fcm_project_unknown: FCM_PROJECT_UNKNOWN,
    THIRD_PARTY_AUTH_ERROR: APNS_AUTH,
    http_400: PUSH_REFUSED,
    http_410: TOKEN_GONE,
  },
  sms: {
    ...BOTH,
    http_400: SMS_REFUSED,
    http_410: SMS_NUMBER_GONE,
    twilio_21211: INVALID_NUMBER,
    twilio_30005: INVALID_NUMBER,
    twilio_21614: NOT_MOBILE,
    twilio_30006: NOT_MOBILE,
    twilio_21610: UNSUBSCRIBED,
    twilio_30003: UNREACHABLE,
    twilio_30007: FILTERED,
    twilio_20429: SLOW_DOWN,
  },
};

const GAVE_UP = /^gave up after \d+ attempts; last: /;

/**
 * The answer code a stored error starts with (`http_503: HTTP 503` → `http_503`), past a "gave up" prefix, or that
 * it is whole (`UNREGISTERED`, as an operator or an older build may have stored it); null when none.
 */
export function storedErrorCode(error: string): string | null {
  const match = /^([A-Za-z0-9_]{1,40})(?::|$)/.exec(error.replace(GAVE_UP, ''));
  return match?.[1] ?? null;
}

/**
 * The explanation of a failure: from the attempt's answer code when it has
 * one, else from the stored error text (`<code>: <message>`, as the worker
 * writes it, src/delivery/retry-policy.ts); null when there is no failure.
 */
export function explainFailure(
  channel: OutboxChannel,
  error: string | null,
  code: string | null = null,
): Explanation | null {
  if (error === null && code === null) return null;
  const text = error ?? '';
  // How the outbox finished it says more than the answer that led there.
  if (text.endsWith('(it may have been accepted; not sent again)')) return UNCERTAIN;
  if (channel === 'sms' && text.endsWith('; a retry would come after the code expires')) return CODE_EXPIRED;
  const key = code ?? storedErrorCode(text);
  if (key === null) return UNKNOWN;
  const known = BY_CODE[channel][key];
  if (known !== undefined) return known;
  // Any other 5xx is the provider's fault as 503 is; any other 4xx is a refusal this table does not know.
  if (/^http_5\d\d$/.test(key)) return PROVIDER_DOWN;
  return UNKNOWN;
}

/** An explanation by its key (a dead letters filter), or null. */
export function explanationByKey(key: string): Explanation | null {
  return EXPLANATIONS.find((e) => e.key === key) ?? null;
}

// Calls refused before anything was queued (src/operations/refused-call.ts),
// by the fault's code: what happened, who must act, what to do.
const REFUSALS: Readonly<Record<string, Explanation>> = {
  no_device: entry(
    'refused-no-device',
    'parents',
    true,
    [
      'Nothing was sent: the student has no phone registered for notifications (the parents have not signed in to the app yet).',
      'The parents install the app and sign in; the school sends again after that.',
    ],
    [
      'لم يُرسل شيء: ليس للطالب هاتف مسجّل للإشعارات (لم يسجّل الأهل الدخول إلى التطبيق بعد).',
      'يثبّت الأهل التطبيق ويسجّلون الدخول؛ ثم تعيد المدرسة الإرسال.',
    ],
  ),
  no_token: entry(
    'refused-no-token',
    'parents',
    true,
    [
      'Nothing was sent: the phone’s push token was removed (the app was uninstalled, or the push service said the token is no longer valid).',
      'The parents open the app on the phone so that it registers again; the school sends again after that.',
    ],
    [
      'لم يُرسل شيء: أُزيل رمز الإشعارات للهاتف (حُذف التطبيق، أو قالت خدمة الإشعارات إن الرمز لم يعد صالحًا).',
      'يفتح الأهل التطبيق على الهاتف ليسجّل من جديد؛ ثم تعيد المدرسة الإرسال.',
    ],
  ),
  student_unknown: entry(
    'refused-student-unknown',
    'school',
    true,
    [
      'Nothing was sent: the school’s system asked for a student id the service does not know.',
      'The school checks the id it sent, or imports its roster so that the student is known.',
    ],
    [
      'لم يُرسل شيء: طلب نظام المدرسة رقم طالب لا تعرفه الخدمة.',
      'تتحقق المدرسة من الرقم الذي أرسلته، أو تستورد قائمة طلابها ليصبح الطالب معروفًا.',
    ],
  ),
  student_not_in_school: entry(
    'refused-other-school',
    'school',
    true,
    [
      'Nothing was sent: the student belongs to another school than the one that asked.',
      'The school checks the id and its own address; if the student moved, an operator corrects the student’s school.',
    ],
    [
      'لم يُرسل شيء: ينتمي الطالب إلى مدرسة غير التي طلبت.',
      'تتحقق المدرسة من الرقم ومن عنوانها؛ وإن انتقل الطالب يصحّح أحد المشغّلين مدرسته.',
    ],
  ),
  phone_invalid: entry(
    'refused-phone-invalid',
    'parents',
    true,
    [
      'No code was sent: the phone number given is not a valid number.',
      'The parents check the number they typed in the app and ask again.',
    ],
    [
      'لم يُرسل أي رمز: رقم الهاتف المعطى ليس رقمًا صالحًا.',
      'يتحقق الأهل من الرقم الذي كتبوه في التطبيق ثم يطلبون مجددًا.',
    ],
  ),
  phone_not_mobile: entry(
    'refused-phone-not-mobile',
    'parents',
    true,
    ['No code was sent: the number given is not a mobile number.', 'The parents ask again with a mobile number.'],
    ['لم يُرسل أي رمز: الرقم المعطى ليس رقم جوال.', 'يطلب الأهل مجددًا برقم جوال.'],
  ),
  phone_country: entry(
    'refused-phone-country',
    'us',
    true,
    [
      'No code was sent: numbers of that country are not accepted by this service (SMS_ALLOWED_COUNTRIES).',
      'If the country should be served, we add it to the service’s settings; otherwise the parents use a local number.',
    ],
    [
      'لم يُرسل أي رمز: لا تقبل هذه الخدمة أرقام ذلك البلد (SMS_ALLOWED_COUNTRIES).',
      'إن كان ينبغي خدمة ذلك البلد نضيفه إلى إعدادات الخدمة؛ وإلا يستعمل الأهل رقمًا محليًا.',
    ],
  ),
  auth_code_limit_phone: entry(
    'refused-limit-phone',
    'parents',
    false,
    [
      'No code was sent: too many login codes were asked for this phone in a short time.',
      'The parents wait for the time the app shows, then ask once, and wait for the text message.',
    ],
    [
      'لم يُرسل أي رمز: طُلبت رموز دخول كثيرة لهذا الهاتف في وقت قصير.',
      'ينتظر الأهل المدة التي يعرضها التطبيق، ثم يطلبون مرة واحدة وينتظرون الرسالة.',
    ],
  ),
  auth_code_limit_caller: entry(
    'refused-limit-caller',
    'us',
    false,
    [
      'No code was sent: too many login codes were asked from one network address.',
      'We check in the audit trail whether that address is misusing the service; a shared school network may need a higher limit.',
    ],
    [
      'لم يُرسل أي رمز: طُلبت رموز دخول كثيرة من عنوان شبكة واحد.',
      'نتحقق في سجل التدقيق مما إذا كان ذلك العنوان يسيء استخدام الخدمة؛ وقد تحتاج شبكة مدرسة مشتركة إلى حد أعلى.',
    ],
  ),
  auth_code_limit_global: entry(
    'refused-limit-global',
    'us',
    false,
    [
      'No code was sent: the service reached its budget of login codes.',
      'We look for misuse, then raise the budget (AUTH_CODE_LIMIT_GLOBAL) if the demand is real.',
    ],
    [
      'لم يُرسل أي رمز: بلغت الخدمة ميزانيتها من رموز الدخول.',
      'نبحث عن إساءة استخدام، ثم نرفع الميزانية (AUTH_CODE_LIMIT_GLOBAL) إن كان الطلب حقيقيًا.',
    ],
  ),
};

/** Why a call was refused, in plain words, from its reason (`no_token`, …); the unknown table entry for another. */
export function explainRefusal(reason: string): Explanation {
  return Object.hasOwn(REFUSALS, reason) ? (REFUSALS[reason] ?? UNKNOWN) : UNKNOWN;
}
