// The import's refusal reasons (src/import/reasons.ts) in the page's
// language (docs/console.md#import-refusals): English from the import's own
// words, Arabic from the table below, with every value (a field, a file, a
// key, a value given) in a <bdi> and the import's English details marked as
// English. A reason kept from before the codes (no `code`) shows its English.
import { englishReason, type Reason, type ReasonCode, type ReasonParams, type Words } from '../import/reasons';
import { bdi, html, type Html, type HtmlValue } from '../shared/markup';
import type { Lang } from './i18n';
import type { View } from './view';

const arabicPlural = new Intl.PluralRules('ar');

/** A counted noun in Arabic: one, two, 3 to 10, 11 to 99, and the rest each take a form of their own. */
interface Counted {
  readonly one: string;
  readonly two: string;
  readonly few: string;
  readonly many: string;
  readonly other: string;
}

const CHARACTERS: Counted = { one: 'حرف واحد', two: 'حرفان', few: 'أحرف', many: 'حرفًا', other: 'حرف' };
const FIELDS: Counted = { one: 'حقل واحد', two: 'حقلان', few: 'حقول', many: 'حقلًا', other: 'حقل' };
const ROWS: Counted = { one: 'صف واحد', two: 'صفان', few: 'صفوف', many: 'صفًا', other: 'صف' };
const VALUES: Counted = { one: 'قيمة واحدة', two: 'قيمتان', few: 'قيم', many: 'قيمة', other: 'قيمة' };
const RECORDS: Counted = { one: 'سجل واحد', two: 'سجلان', few: 'سجلات', many: 'سجلًا', other: 'سجل' };

/** The collections' nouns (`row-unknown-reference`), in Arabic. */
const NOUNS: Readonly<Record<string, string>> = {
  school: 'مدرسة',
  student: 'طالب',
  device: 'جهاز',
  note: 'ملاحظة',
  absence: 'غياب',
};

const URL_REFUSALS: Readonly<Record<string, (field: Html) => Html>> = {
  empty: (field) => html`${field} فارغ.`,
  too_long: (field) => html`${field} أطول من 2048 حرفًا.`,
  not_absolute: (field) => html`${field} ليس عنوان URL كاملًا.`,
  not_https: (field) =>
    html`يجب أن يبدأ ${field} بـ ${bdi('https://')} (و${bdi('http://')} فقط مع ${bdi('EVENTS_ALLOW_HTTP=true')}).`,
  credentials: (field) => html`يجب ألا يحمل ${field} اسم مستخدم أو كلمة مرور.`,
};

interface Tools {
  /** A parameter as an isolated value. */
  v(name: string): Html;
  /** A parameter written in English by the import (a parser's detail, a store's error), marked as such. */
  en(name: string): Html;
  /** A count of a noun, in its Arabic form. */
  count(name: string, noun: Counted): Html;
  number(name: string): string;
}

type Arabic = (p: ReasonParams, t: Tools) => Html;

const FILE_NAMES = 'schools.csv، students.csv، devices.csv، notes.csv، absences.csv';

/** Every code in Arabic: a code without its Arabic does not compile (and test/console/import-reasons.test.ts shows each). */
const ARABIC: Readonly<Record<ReasonCode, Arabic>> = {
  'row-empty': () => html`الصف فارغ.`,
  'row-not-object': (_p, t) => html`العنصر ${t.v('collection')}[${t.number('index')}] ليس كائنًا.`,
  'row-field-count': (_p, t) => html`في الصف ${t.count('count', FIELDS)}، وفي صف العناوين ${t.number('expected')}.`,
  'row-too-many-fields': (_p, t) => html`في الصف أكثر من ${t.count('max', FIELDS)}.`,
  'row-cell-too-long': (_p, t) => html`في الصف حقل أطول من ${t.count('max', CHARACTERS)}.`,
  'row-value-too-long': (_p, t) => html`في الصف قيمة أطول من ${t.count('max', CHARACTERS)}.`,
  'row-too-many-values': (_p, t) => html`في حقول الصف أكثر من ${t.count('max', VALUES)}.`,
  'row-unknown-reference': (p, t) =>
    html`يشير ${t.v('field')} إلى ${NOUNS[String(p.noun)] ?? t.v('noun')} ليس مخزَّنًا ولا في هذا الاستيراد (${t.v('key')}).`,
  'field-required': (_p, t) => html`الحقل ${t.v('field')} مطلوب.`,
  'field-not-text': (_p, t) => html`يجب أن يكون ${t.v('field')} نصًا.`,
  'field-too-long': (_p, t) => html`يجب ألا يزيد ${t.v('field')} على ${t.count('max', CHARACTERS)}.`,
  'field-choice': (_p, t) => html`يجب أن يكون ${t.v('field')} واحدًا من: ${t.v('choices')}.`,
  'field-one-or-zero': (_p, t) => html`يجب أن يكون ${t.v('field')} ${bdi('1')} أو ${bdi('0')}.`,
  'field-true-false': (_p, t) => html`يجب أن يكون ${t.v('field')} ${bdi('true')} أو ${bdi('false')}.`,
  'field-date': (_p, t) => html`يجب أن يكون ${t.v('field')} تاريخًا بصيغة ISO 8601 (${bdi('YYYY-MM-DD')}).`,
  'field-calendar-date': (_p, t) => html`${t.v('field')} ليس تاريخًا في التقويم.`,
  'field-timestamp': (_p, t) => html`يجب أن يكون ${t.v('field')} وقتًا بصيغة ISO 8601.`,
  'field-time': (_p, t) => html`${t.v('field')} ليس وقتًا صالحًا.`,
  'field-time-zone': (_p, t) =>
    html`يجب أن يكون ${t.v('field')} اسم منطقة زمنية من قائمة IANA، مثل ${bdi('Asia/Riyadh')}.`,
  'field-quiet-hours': (_p, t) =>
    html`يجب أن يكون ${t.v('field')} بالصيغة ${bdi('HH:MM-HH:MM')} (بنظام 24 ساعة، والوقتان مختلفان).`,
  'field-fcm-project': (_p, t) =>
    html`يجب أن يسمّي ${t.v('field')} مشروع FCM مضبوطًا في ${bdi('FCM_PROJECTS')}، أو ${bdi('default')}.`,
  'field-url': (p, t) =>
    (URL_REFUSALS[String(p.refusal)] ?? ((field: Html) => html`${field} ليس عنوانًا يقبله مستقبِل الأحداث.`))(
      t.v('field'),
    ),
  'field-invalid': (p, t) =>
    p.field === '' || p.field === undefined
      ? html`السجل غير صالح: ${t.en('detail')}`
      : html`قيمة ${t.v('field')} غير صالحة: ${t.en('detail')}`,
  'file-format': (_p, t) =>
    html`${t.v('file')}: يقرأ الاستيراد ملفات ${bdi('.csv')}، كل ملف لمجموعة واحدة (${bdi(FILE_NAMES)})، أو مستندات ${bdi('.json')}.`,
  'file-json-collection': (_p, t) => html`${t.v('file')}: مستند JSON يسمّي مجموعاته بنفسه؛ اختيار المجموعة لملفات CSV.`,
  'file-unreadable': (_p, t) => html`تعذّرت قراءة ${t.v('file')}: ${t.en('detail')}.`,
  'file-collection-unknown': (_p, t) =>
    html`${t.v('file')}: تعذّر معرفة المجموعة التي يحملها ملف CSV هذا: سمِّه باسم مجموعته (${bdi(FILE_NAMES)})، أو اجعل صف عناوينه أسماء حقولها، أو اختر المجموعة في النموذج.`,
  'file-empty': (_p, t) => html`${t.v('file')} فارغ: يحتاج إلى صف عناوين يسمّي الحقول.`,
  'file-header-missing': (_p, t) =>
    html`${t.v('file')}: ينقص صف العناوين ${t.v('missing')} (حقول ${t.v('collection')} هي ${t.v('fields')}).`,
  'file-header-row': (p, t) => {
    const inner = ARABIC[p.problem as ReasonCode] as Arabic | undefined;
    return html`${t.v('file')}: صف العناوين مرفوض: ${inner === undefined ? t.en('problem') : inner(p, t)}`;
  },
  'file-too-many-rows': (_p, t) =>
    html`في ${t.v('file')} أكثر من ${t.count('max', ROWS)}، وهو أقصى ما يقبله استيراد واحد: قسّمه إلى ملفات أصغر.`,
  'file-not-csv': (_p, t) => html`${t.v('file')} ليس ملف CSV صالحًا: ${t.en('detail')} (السطر ${t.number('line')})`,
  'file-not-json': (_p, t) =>
    html`${t.v('file')} ليس مستند JSON صالحًا: ${t.en('detail')} (قرب السطر ${t.number('line')})`,
  'file-json-shape': (_p, t) =>
    html`يجب أن يحمل ${t.v('file')} كائن JSON واحدًا فيه المجموعات (${bdi('schools, students, ...')}) مصفوفات.`,
  'file-json-not-array': (_p, t) => html`${t.v('file')}: يجب أن تكون ${t.v('collection')} مصفوفة من السجلات.`,
  'file-not-written': (_p, t) => html`لم يُكتب ${t.v('file')}: ${t.en('detail')}`,
  'note-columns-ignored': (p, t) =>
    html`${t.v('file')}: أعمدة تُركت (ليست من حقول ${t.v('collection')}): ${t.v('names')}${Number(p.more) > 0 ? html` و${t.number('more')} غيرها` : ''}`,
  'note-keys-ignored': (p, t) =>
    html`${t.v('file')}: مفاتيح في المستوى الأعلى تُركت: ${t.v('names')}${Number(p.more) > 0 ? html` و${t.number('more')} غيرها` : ''}`,
  'note-bidi': (_p, t) =>
    html`${t.v('file')}: في ${t.count('count', RECORDS)} محارف تحكّم في اتجاه النص (${bdi('U+202A–U+202E, U+2066–U+2069, U+200E, U+200F, U+061C')}) قد تعكس قراءة النص حولها؛ أولها في ${t.v('collection')}، السطر ${t.number('line')}. تُستورد كما هي وتُعرض معزولة.`,
};

const shown = (value: ReasonParams[string] | undefined): string =>
  Array.isArray(value) ? value.join(', ') : String(value ?? '');

function arabicTools(view: View, p: ReasonParams): Tools {
  const number = (name: string) => view.f.number(Number(p[name]));
  return {
    v: (name) => bdi(shown(p[name])),
    en: (name) => html`<bdi dir="ltr" lang="en">${shown(p[name])}</bdi>`,
    number,
    count(name, noun) {
      const n = Number(p[name]);
      const form = arabicPlural.select(n);
      if (form === 'one') return html`${noun.one}`;
      if (form === 'two') return html`${noun.two}`;
      return html`${number(name)} ${form === 'few' ? noun.few : form === 'many' ? noun.many : noun.other}`;
    },
  };
}

/** English words with each value that holds letters isolated; a figure (`65,536`) needs no isolation. */
const isolatedWords: Words<Html> = (strings, ...values) =>
  html(strings, ...values.map((value) => (/\p{L}/u.test(String(value)) ? bdi(value) : value)));

/** A reason in `lang`; a reason without a known code (a report kept from before them) in its English words. */
export function reasonIn(view: View, reason: Partial<Reason> & { readonly reason?: string }): Html {
  const code = reason.code;
  const params = reason.params ?? {};
  if (code === undefined || !Object.hasOwn(ARABIC, code))
    return html`<bdi dir="ltr" lang="en">${reason.reason ?? ''}</bdi>`;
  return reasonOf(view.lang, view, { code, params });
}

function reasonOf(lang: Lang, view: View, reason: Reason): Html {
  if (lang === 'en') return englishReason(reason, isolatedWords);
  return ARABIC[reason.code](reason.params, arabicTools(view, reason.params));
}

/** The value a rejected row gave, masked by the import where it may be personal data; a dash when none. */
export function rejectedValue(reason: Partial<Reason>): HtmlValue {
  const value = reason.params?.value;
  return typeof value === 'string' && value !== '' ? bdi(value, 'code') : '–';
}
