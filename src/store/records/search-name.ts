// How the console's student search compares names (docs/console.md#find-a-student):
// lower case, without Arabic diacritics (the harakat U+064B to U+0652, the
// dagger alef U+0670) and without the tatweel U+0640, so that "محمّد" and
// "محمد", "Amira" and "amira" find each other. The same rule twice: in SQL
// for the generated column students.search_name (migration 0008), and in
// TypeScript for the words searched; test/console/students.test.ts
// checks that they agree. SQLite's lower() folds ASCII letters only, so the
// TypeScript side folds those only too.
const STRIPPED = ['\u064B', '\u064C', '\u064D', '\u064E', '\u064F', '\u0650', '\u0651', '\u0652', '\u0670', '\u0640'];

/** The generated column's expression, over `full_name`. */
export const SEARCH_NAME_SQL = STRIPPED.reduce(
  (inner, ch) => `replace(${inner}, '${ch}', '')`,
  // ASCII letters only, as SQLite's lower(): translate would be PostgreSQL's alone.
  `lower(full_name)`,
);

const STRIP = new RegExp(`[${STRIPPED.join('')}]`, 'g');

/** The search words as the column holds names. */
export function searchName(text: string): string {
  return text.replace(/[A-Z]/g, (ch) => ch.toLowerCase()).replace(STRIP, '');
}
