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

/** Where the line breaks and indentation go, and each field's tags with them, built once. */
interface ItemLayout {
  readonly itemOpen: string;
  readonly itemClose: string;
  readonly fields: ReadonlyArray<{
    readonly key: (typeof STUDENT_INFO_FIELDS)[number]['key'];
    /** The field's opening tag, after its line break and indentation. */
    readonly open: string;
    readonly close: string;
    /** The field self-closed, for an empty value. */
    readonly empty: string;
  }>;
}

function itemLayout(itemOpen: string, fieldPrefix: string, itemClose: string): ItemLayout {
  return {
    itemOpen,
    itemClose,
    fields: STUDENT_INFO_FIELDS.map((field) => ({
      key: field.key,
      open: `${fieldPrefix}<${field.wireName}>`,
      close: `</${field.wireName}>`,
      empty: `${fieldPrefix}<${field.wireName} />`,
    })),
  };
}

const SOAP_LAYOUT = itemLayout('<StudentInfo>', '', '</StudentInfo>');
const HTTP_LAYOUT = itemLayout('\r\n  <StudentInfo>', '\r\n    ', '\r\n  </StudentInfo>');

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

/**
 * `head`, the items, then `tail`, in chunks of about CHUNK_CHARS characters.
 * Each chunk is one string grown piece by piece with the tags built once
 * (itemLayout): an array of parts joined per chunk, and the tags put
 * together again for every field of every item, cost a tenth of a 500-student
 * call (docs/benchmark.md#request-path).
 */
function writeItems(head: string, items: readonly StudentInfo[], layout: ItemLayout, tail: string): Chunks {
  const chunks: Buffer[] = [];
  const fields = layout.fields;
  let text = head;
  for (const item of items) {
    text += layout.itemOpen;
    for (const field of fields) {
      const value = item[field.key];
      if (value === null) continue;
      text += value === '' ? field.empty : field.open + escapeText(value) + field.close;
    }
    text += layout.itemClose;
    if (text.length >= CHUNK_CHARS) {
      chunks.push(Buffer.from(text, 'utf8'));
      text = '';
    }
  }
  chunks.push(Buffer.from(text + tail, 'utf8'));
  return chunks;
}
