// Every CSV cell the project writes goes through spreadsheetSafe, and the
// import reads cells back through fromSpreadsheetSafe (docs/operating.md#import-and-export).
// A school's office opens these files in a spreadsheet, which runs a cell
// starting with `=`, `+`, `-` or `@` (tab and carriage return too, before
// one of those) as a formula: `=HYPERLINK(...)` in a student's name becomes a
// link, `=cmd|...` a command. Such a cell is written with a single quote in
// front, as OWASP recommends; spreadsheets show the rest as text.

/** What a spreadsheet may take as the start of a formula. */
const FORMULA_START = /^'*[=+\-@\t\r]/;

/** The cell to write for `value`: with a quote in front when a spreadsheet would run it. */
export function spreadsheetSafe(value: string): string {
  // A value that already starts with quotes before such a character gets one
  // more, so that reading back takes exactly one away: `'=x` is written `''=x`.
  return FORMULA_START.test(value) ? `'${value}` : value;
}

/**
 * The value a cell written by spreadsheetSafe holds: one leading quote
 * removed when quotes and then a formula character follow it; any other cell
 * as it is (`'hello` keeps its quote, `+963...` read from a hand-written file stays).
 */
export function fromSpreadsheetSafe(cell: string): string {
  return cell.startsWith("'") && FORMULA_START.test(cell.slice(1)) ? cell.slice(1) : cell;
}
