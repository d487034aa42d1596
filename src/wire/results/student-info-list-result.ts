// ArrayOfStudentInfo (GetStudentSchool): StudentInfo items in schema order; a
// null field is left out (minOccurs=0, not nillable), an empty one
// self-closed. No whitespace in SOAP; XmlSerializer's CRLF and two-space
// indentation over HTTP GET/POST. A long list is written in chunks (./chunks.ts).
import { STUDENT_INFO_FIELDS, type StudentInfo } from '../../contract';
import { escapeText } from '../../shared/markup';
import type { Chunks } from './chunks';
import { XML_DECLARATION_CRLF, XSD_XSI, type ResultTypeModule } from './result-type';

const ROOT = 'ArrayOfStudentInfo';
/** ASMX's sample arrays hold two items (DefaultWsdlHelpGenerator's maxArraySize). */
const SAMPLE_ARRAY_SIZE = 2;
const CHUNK_CHARS = 32 * 1024;

/** Where the line breaks and indentation go. */
interface ItemLayout {
  readonly itemOpen: string;
  readonly fieldPrefix: string;
  readonly itemClose: string;
}

const SOAP_LAYOUT: ItemLayout = { itemOpen: '<StudentInfo>', fieldPrefix: '', itemClose: '</StudentInfo>' };
const HTTP_LAYOUT: ItemLayout = {
  itemOpen: '\r\n  <StudentInfo>',
  fieldPrefix: '\r\n    ',
  itemClose: '\r\n  </StudentInfo>',
};

export const STUDENT_INFO_LIST_RESULT: ResultTypeModule<'ArrayOfStudentInfo'> = {
  type: 'ArrayOfStudentInfo',
  httpRoot: ROOT,
  soapWriter({ open, close, resultElement }) {
    const empty = `${open}><${resultElement} />${close}`;
    const start = `${open}><${resultElement}>`;
    const end = `</${resultElement}>${close}`;
    return (head, items, tail) =>
      items.length === 0 ? head + empty + tail : writeItems(head + start, items, SOAP_LAYOUT, end + tail);
  },
  httpWriter(ns) {
    const empty = `${XML_DECLARATION_CRLF}<${ROOT} ${XSD_XSI} ${ns} />`;
    const open = `${XML_DECLARATION_CRLF}<${ROOT} ${XSD_XSI} ${ns}>`;
    const close = `\r\n</${ROOT}>`;
    return (items) => (items.length === 0 ? empty : writeItems(open, items, HTTP_LAYOUT, close));
  },
  sampleValue(slot) {
    const item: StudentInfo = { studentId: slot, fullName: slot, deviceId: slot, showActive: slot };
    return Array<StudentInfo>(SAMPLE_ARRAY_SIZE).fill(item);
  },
};

/** `head`, the items, then `tail`, in chunks of about CHUNK_CHARS characters. */
function writeItems(head: string, items: readonly StudentInfo[], layout: ItemLayout, tail: string): Chunks {
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
      value === ''
        ? `${layout.fieldPrefix}<${field.wireName} />`
        : `${layout.fieldPrefix}<${field.wireName}>${escapeText(value)}</${field.wireName}>`;
    parts.push(text);
    chars += text.length;
  }
  parts.push(layout.itemClose);
  return chars;
}
