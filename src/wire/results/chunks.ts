/**
 * An answer as UTF-8 chunks. A list of thousands of students is written in
 * pieces of about 32 K characters: one string of a megabyte would land in
 * V8's large-object space and stay there, and in the process's memory, until
 * a full collection.
 */
export type Chunks = readonly Buffer[];

/** The text of an answer, whichever form it was written in (help-page samples, tests). */
export function answerText(body: string | Chunks): string {
  return typeof body === 'string' ? body : Buffer.concat(body).toString('utf8');
}
