import { STUDENT_INFO_FIELDS, type StudentInfo } from '../contract';
import { escapeText } from './xml-text';

/** Where the line breaks and indentation go: none in SOAP envelopes, XmlSerializer's in GET/POST bodies. */
export interface ItemLayout {
  readonly itemOpen: string;
  readonly fieldPrefix: string;
  readonly itemClose: string;
}

/** StudentInfo items in schema order; a null field is omitted (minOccurs=0, not nillable), an empty one self-closed. */
export function writeStudentInfoItems(items: readonly StudentInfo[], layout: ItemLayout): string {
  const parts: string[] = [];
  for (const item of items) {
    parts.push(layout.itemOpen);
    for (const field of STUDENT_INFO_FIELDS) {
      const value = item[field.key];
      if (value === null) continue;
      parts.push(
        value === '' ? `${layout.fieldPrefix}<${field.wireName} />` : `${layout.fieldPrefix}<${field.wireName}>${escapeText(value)}</${field.wireName}>`,
      );
    }
    parts.push(layout.itemClose);
  }
  return parts.join('');
}
