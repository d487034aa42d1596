// The overview's words for its period choice, its chart and its read-through
// funnel, in both languages (docs/console.md#overview), beside the console's
// other messages in i18n.ts.
import type { ChartWords } from './chart';
import type { Lang } from './i18n';

export const RANGES = ['1h', '24h', '7d', '30d'] as const;
export type Range = (typeof RANGES)[number];

export interface OverviewText {
  readonly chart: ChartWords;
  readonly rangeNav: string;
  readonly range: Readonly<Record<Range, string>>;
  readonly chartTitle: Readonly<Record<Range, string>>;
  readonly funnelTitle: string;
  readonly funnelHint: string;
  readonly funnelEmpty: string;
  readonly funnelMore: (shown: string) => string;
  readonly colDay: string;
  readonly colSchool: string;
  readonly colType: string;
  readonly colQueued: string;
  readonly colAccepted: string;
  readonly colRead: string;
  readonly colShare: string;
  readonly noSchool: string;
  readonly live: string;
}

const englishRules = new Intl.PluralRules('en');

const en: OverviewText = {
  chart: {
    sent: 'Sent',
    retrying: 'Retrying',
    dead: 'Given up',
    comma: ', ',
    summary: (sent, retrying, dead) => `${sent} sent, ${retrying} retrying and ${dead} given up in this period.`,
    periods: (n, formatted) =>
      englishRules.select(n) === 'one'
        ? `${formatted} period with messages: links to them`
        : `${formatted} periods with messages: links to them`,
    colPeriod: 'Period from',
    colMessages: 'Queued',
    colLink: 'Messages',
    showMessages: 'Show messages',
  },
  rangeNav: 'Period',
  range: { '1h': '1 hour', '24h': '24 hours', '7d': '7 days', '30d': '30 days' },
  chartTitle: {
    '1h': 'Per minute, last hour (UTC)',
    '24h': 'Per hour, last 24 hours (UTC)',
    '7d': 'Per hour, last 7 days (UTC)',
    '30d': 'Per day, last 30 days (UTC)',
  },
  funnelTitle: 'Read-through per school and type, per day',
  funnelHint:
    'Push notifications queued, accepted by the provider, and read in the app afterwards (the app reports reading when the parents open the notes of the type, or the absences).',
  funnelEmpty: 'No push notification was queued in this period.',
  funnelMore: (shown) => `The first ${shown} rows are shown.`,
  colDay: 'Day (UTC)',
  colSchool: 'School',
  colType: 'Type',
  colQueued: 'Queued',
  colAccepted: 'Accepted by the provider',
  colRead: 'Read in the app',
  colShare: 'Share',
  noSchool: 'Not known',
  live: 'The figures above refresh every few seconds.',
};

const arabicRules = new Intl.PluralRules('ar');

/** "N periods with messages" in Arabic, the noun in its form for the number. */
function arabicPeriods(n: number, formatted: string): string {
  const tail = ': روابطها';
  switch (arabicRules.select(n)) {
    case 'zero':
      return `لا فترة فيها رسائل${tail}`;
    case 'one':
      return `فترة واحدة فيها رسائل${tail}`;
    case 'two':
      return `فترتان فيهما رسائل${tail}`;
    case 'few':
      return `${formatted} فترات فيها رسائل${tail}`;
    default:
      return `${formatted} فترة فيها رسائل${tail}`;
  }
}

const ar: OverviewText = {
  chart: {
    sent: 'أُرسلت',
    retrying: 'تُعاد محاولتها',
    dead: 'توقّف إرسالها',
    comma: '، ',
    summary: (sent, retrying, dead) => `في هذه المدة: أُرسلت ${sent}، وتُعاد محاولة ${retrying}، وتوقّف إرسال ${dead}.`,
    periods: arabicPeriods,
    colPeriod: 'بداية الفترة',
    colMessages: 'المُدرجة',
    colLink: 'الرسائل',
    showMessages: 'اعرض الرسائل',
  },
  rangeNav: 'المدة',
  range: { '1h': 'ساعة', '24h': '24 ساعة', '7d': '7 أيام', '30d': '30 يومًا' },
  chartTitle: {
    '1h': 'في كل دقيقة، آخر ساعة (UTC)',
    '24h': 'في كل ساعة، آخر 24 ساعة (UTC)',
    '7d': 'في كل ساعة، آخر 7 أيام (UTC)',
    '30d': 'في كل يوم، آخر 30 يومًا (UTC)',
  },
  funnelTitle: 'الوصول والقراءة لكل مدرسة ونوع، يومًا بيوم',
  funnelHint:
    'الإشعارات التي أُدرجت، وما قبله مزوّد الخدمة منها، وما قُرئ في التطبيق بعد ذلك (يُبلغ التطبيق بالقراءة حين يفتح الأهل ملاحظات النوع أو الغياب).',
  funnelEmpty: 'لم يُدرج أي إشعار في هذه المدة.',
  funnelMore: (shown) => `تظهر أول ${shown} صفوف.`,
  colDay: 'اليوم (UTC)',
  colSchool: 'المدرسة',
  colType: 'النوع',
  colQueued: 'أُدرجت',
  colAccepted: 'قبلها مزوّد الخدمة',
  colRead: 'قُرئت في التطبيق',
  colShare: 'النسبة',
  noSchool: 'غير معروفة',
  live: 'تتجدّد الأرقام أعلاه كل بضع ثوانٍ.',
};

export const OVERVIEW_TEXT: Readonly<Record<Lang, OverviewText>> = { en, ar };
