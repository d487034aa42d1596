// Reads the legacy service's SOAP 1.1 answers with saxes: namespace-aware,
// strict, no DTD and so no entity of any kind, elements nested no deeper than
// an answer needs, and at most a set number of StudentInfo records. A broken
// or hostile answer is an error, never a large allocation.
import { SaxesParser, type SaxesTagNS } from 'saxes';
import { STUDENT_INFO_FIELDS, type StudentInfo, type StudentInfoKey } from '../../contract';

const SOAP11_ENV = 'http://schemas.xmlsoap.org/soap/envelope/';
const XSI = 'http://www.w3.org/2001/XMLSchema-instance';
// Envelope, Body, OpResponse, OpResult, StudentInfo, field: 6; a few more for markup inside a field.
const MAX_DEPTH = 12;

/** The answer cannot be used: a fault, not XML, not the shape the operation answers, or over a bound. */
export class LegacyAnswerError extends Error {
  override readonly name = 'LegacyAnswerError';
}

interface Element {
  readonly namespace: string;
  readonly local: string;
  readonly nil: boolean;
}

interface Visitor {
  open(path: readonly Element[]): void;
  /** The text of the element that closes (CDATA included). */
  close(path: readonly Element[], text: string): void;
}

function readEnvelope(xml: string, visit: Visitor): void {
  const parser = new SaxesParser({ xmlns: true });
  const path: Element[] = [];
  const texts: string[][] = [];
  let fault: { code: string } | null = null;
  parser.on('doctype', () => {
    throw new LegacyAnswerError('the answer has a DTD, which is refused.');
  });
  parser.on('opentagstart', () => {
    if (path.length >= MAX_DEPTH) throw new LegacyAnswerError(`the answer nests elements deeper than ${MAX_DEPTH}.`);
  });
  parser.on('opentag', (tag: SaxesTagNS) => {
    const element = { namespace: tag.uri ?? '', local: tag.local ?? tag.name, nil: isNil(tag) };
    if (path.length === 0 && (element.namespace !== SOAP11_ENV || element.local !== 'Envelope'))
      throw new LegacyAnswerError('the answer is not a SOAP 1.1 envelope.');
    path.push(element);
    texts.push([]);
    if (path.length === 3 && element.namespace === SOAP11_ENV && element.local === 'Fault') fault = { code: '' };
    if (fault === null) visit.open(path);
  });
  const collect = (text: string) => texts[texts.length - 1]?.push(text);
  parser.on('text', collect);
  parser.on('cdata', collect);
  parser.on('closetag', () => {
    const text = (texts.pop() ?? []).join('');
    const faultCode = path.length === 4 && path[3]?.local === 'faultcode';
    if (fault !== null && faultCode) fault.code = text.trim().slice(0, 64);
    if (fault === null) visit.close(path, text);
    path.pop();
  });
  try {
    parser.write(xml).close();
  } catch (error) {
    if (error instanceof LegacyAnswerError) throw error;
    throw new LegacyAnswerError(`the answer is not well-formed XML (${(error as Error).message.slice(0, 120)}).`);
  }
  // The fault string may echo what was asked (an id): only the code is told.
  if (fault !== null)
    throw new LegacyAnswerError(
      `the legacy service answered a SOAP fault (${(fault as { code: string }).code || 'no faultcode'}).`,
    );
}

function isNil(tag: SaxesTagNS): boolean {
  return Object.values(tag.attributes).some(
    (attribute) => attribute.uri === XSI && attribute.local === 'nil' && ['true', '1'].includes(attribute.value.trim()),
  );
}

const isBody = (element: Element | undefined) => element?.namespace === SOAP11_ENV && element.local === 'Body';

interface Expected {
  /** The operation's target namespace, from the legacy's WSDL. */
  readonly namespace: string;
  readonly operation: string;
}

const KEY_OF_WIRE_FIELD: ReadonlyMap<string, StudentInfoKey> = new Map(
  STUDENT_INFO_FIELDS.map((f) => [f.wireName, f.key]),
);

/** GetStudentSchool's answer: at most `maxStudents` StudentInfo records, a field null when its element is missing or nil. */
export function readStudentList(xml: string, expected: Expected & { readonly maxStudents: number }): StudentInfo[] {
  const { namespace, operation } = expected;
  const students: Record<StudentInfoKey, string | null>[] = [];
  let response = false;
  let current: Record<StudentInfoKey, string | null> | null = null;
  const ours = (element: Element | undefined, local: string) =>
    element?.namespace === namespace && element.local === local;
  readEnvelope(xml, {
    open(path) {
      if (path.length === 3 && isBody(path[1]) && ours(path[2], `${operation}Response`)) response = true;
      if (path.length === 5 && response && ours(path[3], `${operation}Result`) && ours(path[4], 'StudentInfo')) {
        if (students.length >= expected.maxStudents)
          throw new LegacyAnswerError(`the answer lists more than ${expected.maxStudents} students (--max-students).`);
        current = Object.fromEntries(STUDENT_INFO_FIELDS.map((field) => [field.key, null])) as Record<
          StudentInfoKey,
          null
        >;
        students.push(current);
      }
    },
    close(path, text) {
      const element = path[path.length - 1];
      if (path.length === 6 && current !== null && element !== undefined && element.namespace === namespace) {
        const key = KEY_OF_WIRE_FIELD.get(element.local);
        if (key !== undefined && !element.nil) current[key] = text;
      }
      if (path.length === 5) current = null;
    },
  });
  if (!response) throw new LegacyAnswerError(`the answer holds no ${operation}Response.`);
  return students;
}

/** GetTokenDevice's answer: the token; null when the result is left out (ASMX's null string) or nil. */
export function readToken(xml: string, expected: Expected): string | null {
  const { namespace, operation } = expected;
  let response = false;
  let token: string | null = null;
  readEnvelope(xml, {
    open(path) {
      if (
        path.length === 3 &&
        isBody(path[1]) &&
        path[2]?.namespace === namespace &&
        path[2].local === `${operation}Response`
      )
        response = true;
    },
    close(path, text) {
      const element = path[3];
      if (path.length === 4 && response && element?.namespace === namespace && element.local === `${operation}Result`)
        token = element.nil ? null : text;
    },
  });
  if (!response) throw new LegacyAnswerError(`the answer holds no ${operation}Response.`);
  return token;
}
