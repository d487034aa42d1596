// A form's refusals in the page's language (docs/console.md#languages). The
// fields are checked by the collections' and the admin API's own zod
// schemas, whose messages are English (as the import and the admin API give
// them): on an English page they are shown as they are; on an Arabic page
// each issue is said in Arabic by its kind (required, too long, not one of
// the values, ...), ending with the Arabic full stop on the Arabic side. An
// issue the console has no words for is shown in English, isolated
// (src/shared/bidi.ts), so that its full stop stays at its end instead of
// moving to the other side of the Arabic around it.
import type { z } from 'zod';
import { isolated } from '../shared/bidi';
import type { View } from './view';

/** One check's refusal, in the page's language. */
export function issueText(view: View, issue: z.core.$ZodIssue): string {
  if (view.lang === 'en') return issue.message;
  return arabicIssue(issue) ?? isolated(issue.message);
}

/** Text the console did not write (an importer's or a store's refusal), kept whole on an Arabic page. */
export function foreignText(view: View, text: string): string {
  return view.lang === 'en' ? text : isolated(text);
}

function arabicIssue(issue: z.core.$ZodIssue): string | null {
  switch (issue.code) {
    case 'invalid_type':
      return /received (undefined|null)/.test(issue.message) ? 'مطلوب.' : 'ليست القيمة من النوع المتوقّع.';
    case 'too_big':
      return issue.origin === 'string'
        ? `يجب ألا يزيد على ${String(issue.maximum)} حرفًا.`
        : issue.origin === 'number' || issue.origin === 'int'
          ? `يجب ألا يزيد على ${String(issue.maximum)}.`
          : null;
    case 'too_small':
      if (issue.origin === 'string')
        return Number(issue.minimum) <= 1 ? 'مطلوب.' : `يجب ألا يقلّ عن ${String(issue.minimum)} أحرف.`;
      return issue.origin === 'number' || issue.origin === 'int' ? `يجب ألا يقلّ عن ${String(issue.minimum)}.` : null;
    case 'invalid_format':
      return issue.format === 'datetime' || issue.format === 'date'
        ? 'ليس وقتًا صحيحًا.'
        : issue.format === 'url'
          ? 'ليس عنوانًا صحيحًا.'
          : 'صيغة القيمة غير صحيحة.';
    case 'invalid_value':
      return `يجب أن تكون إحدى القيم: ${issue.values.map((value) => isolated(String(value))).join('، ')}.`;
    case 'unrecognized_keys':
      return 'حقل غير معروف.';
    default:
      return null;
  }
}
