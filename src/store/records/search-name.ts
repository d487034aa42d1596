// How the console's student search compares names (docs/console.md#find-a-student):
// lower case; without Arabic diacritics (the harakat U+064B to U+065F, the
// dagger alef U+0670) and without the tatweel U+0640; and with the Arabic
// letters people type one for another folded to one: the hamza and madda
// alefs (أ إ آ ٱ) to a bare alef ا, the taa marbuta ة to haa ه, the alef
// maqsura ى to yaa ي. So "محمد" finds "مُحَمَّد", "احمد" finds "أحمد" and
// "إحمد", "فاطمه" finds "فاطمة", and "Amira" finds "amira". The same rule
// twice: in SQL for the generated column students.search_name (migration
// 0012), and in TypeScript for the words searched;
// test/console/students.test.ts checks that they agree. SQLite's lower()
// folds ASCII letters only, so the TypeScript side folds those only too.

/** Characters dropped: the harakat and Quranic marks U+064B to U+065F, the dagger alef, the tatweel. */
const STRIPPED: readonly string[] = [
  ...Array.from({ length: 0x065f - 0x064b + 1 }, (_, i) => String.fromCharCode(0x064b + i)),
  '\u0670',
  '\u0640',
];

/** Characters replaced by the letter people mean by them. */
const FOLDED: readonly (readonly [string, string])[] = [
  ['\u0623', '\u0627'], // أ alef with hamza above
  ['\u0625', '\u0627'], // إ alef with hamza below
  ['\u0622', '\u0627'], // آ alef with madda
  ['\u0671', '\u0627'], // ٱ alef wasla
  ['\u0629', '\u0647'], // ة taa marbuta -> ه
  ['\u0649', '\u064A'], // ى alef maqsura -> ي
];

/** The generated column's expression, over `full_name` (nested replace(), the same on SQLite and PostgreSQL). */
export const SEARCH_NAME_SQL = [...STRIPPED.map((ch) => [ch, ''] as const), ...FOLDED].reduce(
  (inner, [from, to]) => `replace(${inner}, '${from}', '${to}')`,
  // ASCII letters only, as SQLite's lower(): translate would be PostgreSQL's alone.
  `lower(full_name)`,
);

const STRIP = new RegExp(`[${STRIPPED.join('')}]`, 'g');
const FOLD = new Map(FOLDED);
const FOLD_ANY = new RegExp(`[${FOLDED.map(([from]) => from).join('')}]`, 'g');

/** The search words as the column holds names. */
export function searchName(text: string): string {
  return text
    .replace(/[A-Z]/g, (ch) => ch.toLowerCase())
    .replace(STRIP, '')
    .replace(FOLD_ANY, (ch) => FOLD.get(ch) ?? ch);
}
