import { STUDENT_INFO_FIELDS, type StudentInfo } from '../contract';
import { escapeText } from './xml-text';

/** Where the line breaks and indentation go: none in SOAP envelopes, XmlSerializer's in GET/POST bodies. */
export interface ItemLayout {
  readonly itemOpen: string;
  readonly fieldPrefix: string;
  readonly itemClose: string;
}

/**
 * An answer as UTF-8 chunks. A list of thousands of students is written in
 * pieces of about 32 K characters: one string of a megabyte would land in
 * V8's large-object space and stay there, and in the process's memory, until
 * a full collection.
 */
export type Chunks = readonly Buffer[];

const CHUNK_CHARS = 32 * 1024;

/** `head`, the StudentInfo items in schema order, then `tail`; a null field is omitted (minOccurs=0, not nillable), an empty one self-closed. */
export function writeStudentInfoChunks(head: string, items: readonly StudentInfo[], layout: ItemLayout, tail: string): Chunks {
  const chunks: Buffer[] = [];
  let parts: string[] = [head];
  let chars = head.length;
  for (const item of items) {
    chars += appendItem(parts, item, layout);
    if (chars >= CHUNK_CHARS) {
      chunks.push(Buffer.from(parts.join(''), 'utf8'));
      parts = [];
      chars = 0;
    }
  }
  parts.push(tail);
  chunks.push(Buffer.from(parts.join(''), 'utf8'));
  return chunks;
}

function appendItem(parts: string[], item: StudentInfo, layout: ItemLayout): number {
  let chars = layout.itemOpen.length + layout.itemClose.length;
  parts.push(layout.itemOpen);
  for (const field of STUDENT_INFO_FIELDS) {
    const value = item[field.key];
    if (value === null) continue;
    const text =
      value === '' ? `${layout.fieldPrefix}<${field.wireName} />` : `${layout.fieldPrefix}<${field.wireName}>${escapeText(value)}</${field.wireName}>`;
    parts.push(text);
    chars += text.length;
  }
  parts.push(layout.itemClose);
  return chars;
}

/** The text of an answer, whichever form it was written in (help-page samples, tests). */
export function answerText(body: string | Chunks): string {
  return typeof body === 'string' ? body : Buffer.concat(body).toString('utf8');
}
