// The bodies of the HTTP GET and POST bindings, as XmlSerializer writes them:
// an XML declaration, CRLF, the root in the service namespace, 2-space
// indentation with CRLF, no trailing newline.
import { HTTP_ROOT_ELEMENT, type OperationModel, type StudentInfo } from '../../contract';
import { writeStudentInfoChunks, type Chunks, type ItemLayout } from '../student-info-writer';
import { escapeAttribute, escapeText } from '../xml-text';

const DECLARATION = '<?xml version="1.0" encoding="utf-8"?>\r\n';
const XSD_XSI = 'xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"';

const LAYOUT: ItemLayout = { itemOpen: '\r\n  <StudentInfo>', fieldPrefix: '\r\n    ', itemClose: '\r\n  </StudentInfo>' };

/** Returns the body, or null for a void operation (200 with no body and no Content-Type). */
export type ResultWriter = (value: unknown) => string | Chunks | null;

export function createResultWriter(operation: OperationModel, namespace: string): ResultWriter {
  const ns = `xmlns="${escapeAttribute(namespace)}"`;
  const root = HTTP_ROOT_ELEMENT[operation.result];
  switch (operation.result) {
    case 'void':
      return () => null;
    case 'string': {
      const nil = `${DECLARATION}<${root} ${XSD_XSI} xsi:nil="true" ${ns} />`;
      const empty = `${DECLARATION}<${root} ${ns} />`;
      const open = `${DECLARATION}<${root} ${ns}>`;
      const close = `</${root}>`;
      return (value) => {
        if (value === null || value === undefined) return nil;
        const text = String(value);
        return text === '' ? empty : open + escapeText(text) + close;
      };
    }
    case 'ArrayOfStudentInfo': {
      const empty = `${DECLARATION}<${root} ${XSD_XSI} ${ns} />`;
      const open = `${DECLARATION}<${root} ${XSD_XSI} ${ns}>`;
      const close = `\r\n</${root}>`;
      return (value) => {
        const items = value as readonly StudentInfo[];
        return items.length === 0 ? empty : writeStudentInfoChunks(open, items, LAYOUT, close);
      };
    }
  }
}
