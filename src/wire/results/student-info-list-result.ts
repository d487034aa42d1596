// ArrayOfStudentInfo (GetStudentSchool): StudentInfo items in schema order; a
// null field is left out (minOccurs=0, not nillable), an empty one
// self-closed. No whitespace in SOAP; XmlSerializer's CRLF and two-space
// indentation over HTTP GET/POST. A long list is written in chunks (./chunks.ts).
import { STUDENT_INFO_FIELDS, type StudentInfo } from '../../contract';
import type { Chunks } from './chunks';
import { XML_DECLARATION_CRLF, XSD_XSI, type ResultTypeModule } from './result-type';
import { Utf8Chunks, utf8Bytes } from './utf8-chunks';

const ROOT = 'ArrayOfStudentInfo';
/** ASMX's sample arrays hold two items (DefaultWsdlHelpGenerator's maxArraySize). */
const SAMPLE_ARRAY_SIZE = 2;

/** Where the line breaks and indentation go, and each field's tags with them, built once as UTF-8. */
interface ItemLayout {
  readonly itemOpen: Uint8Array;
  readonly itemClose: Uint8Array;
  readonly fields: ReadonlyArray<{
    readonly key: (typeof STUDENT_INFO_FIELDS)[number]['key'];
    /** The field's opening tag, after its line break and indentation. */
    readonly open: Uint8Array;
    readonly close: Uint8Array;
    /** The field self-closed, for an empty value. */
    readonly empty: Uint8Array;
  }>;
}

function itemLayout(itemOpen: string, fieldPrefix: string, itemClose: string): ItemLayout {
  return {
    itemOpen: utf8Bytes(itemOpen),
    itemClose: utf8Bytes(itemClose),
    fields: STUDENT_INFO_FIELDS.map((field) => ({
      key: field.key,
      open: utf8Bytes(`${fieldPrefix}<${field.wireName}>`),
      close: utf8Bytes(`</${field.wireName}>`),
      empty: utf8Bytes(`${fieldPrefix}<${field.wireName} />`),
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
 * `head`, the items, then `tail`, as UTF-8 in chunks (utf8-chunks.ts): the
 * tags' bytes made once (itemLayout), each value escaped and encoded as it is
 * copied. Built as one string grown piece by piece, Buffer.from then spent
 * four fifths of a 500-student list's instructions flattening and encoding it
 * (docs/benchmark.md#sixth-round-the-operations-share).
 */
function writeItems(head: string, items: readonly StudentInfo[], layout: ItemLayout, tail: string): Chunks {
  const out = new Utf8Chunks();
  const fields = layout.fields;
  out.markup(head);
  for (const item of items) {
    out.bytes(layout.itemOpen);
    for (const field of fields) {
      const value = item[field.key];
      if (value === null) continue;
      if (value === '') {
        out.bytes(field.empty);
      } else {
        out.bytes(field.open);
        out.text(value);
        out.bytes(field.close);
      }
    }
    out.bytes(layout.itemClose);
  }
  out.markup(tail);
  return out.end();
}
