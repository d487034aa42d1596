// A data set's record refused, by path. Imports come from CSV and JSON
// written by hand, so the store accepts the obvious spellings (numbers for
// ids, "true"/"false" for flags) and refuses everything else; the field rules
// are the collections' (collections/fields.ts).

export class InvalidDataSetError extends Error {
  override readonly name = 'InvalidDataSetError';

  constructor(
    /** Where the bad value is, e.g. `students[3].active`. */
    readonly path: string,
    problem: string,
  ) {
    super(`${path} ${problem}`);
  }
}
