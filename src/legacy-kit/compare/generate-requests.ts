// The requests `npm run compare` sends when none are given
// (docs/migration.md#compare): for every operation a server's WSDL describes,
// over all four bindings, known values from a data file, unknown and empty
// and missing ones, parameter names in another letter case, Arabic and
// XML-special text, a long value; per binding a wrong SOAPAction, a
// malformed envelope, SOAP 1.2 without its action; per endpoint `?wsdl`,
// `?disco` and the help pages. Writes only when asked.
import { isContractOperation, type WireOperationName, type WireOperations } from '../../contract';
import { escapeAttribute, escapeText } from '../../shared/markup';
import type { RecordedRequest } from './exchange';
import { operationKind } from './operation-kinds';
import type { DescribedEndpoint, DescribedOperation } from './wsdl-operations';

export type BindingName = 'soap11' | 'soap12' | 'http_get' | 'http_post' | 'document';

export interface PlannedRequest {
  readonly endpoint: string;
  /** Null for the documents. */
  readonly operation: string | null;
  readonly binding: BindingName;
  readonly case: string;
  readonly request: RecordedRequest;
}

/** Values that exist in the primary's data (from `--data`): what the `known` case sends. */
export interface KnownData {
  readonly studentIds: readonly string[];
  readonly deviceIds: readonly string[];
  readonly schools: readonly string[];
  /** Subject and class of audit notes. */
  readonly auditNotes: readonly { readonly subjectId: string; readonly classId: string }[];
  /** Student and type of notes. */
  readonly notes: readonly { readonly studentId: string; readonly type: string }[];
  /** Students with absences. */
  readonly absenceStudents: readonly string[];
}

export const NO_DATA: KnownData = {
  studentIds: [],
  deviceIds: [],
  schools: [],
  auditNotes: [],
  notes: [],
  absenceStudents: [],
};

/** Known values sent per operation, at most this many sets. */
const KNOWN_PER_OPERATION = 3;
const SOAP11 = 'http://schemas.xmlsoap.org/soap/envelope/';
const SOAP12 = 'http://www.w3.org/2003/05/soap-envelope';
const UNKNOWN = 'unknown-0000-compare';
const ARABIC_XML = `مدرسة <النور> & "Q" 'x'`;
const LONG = 'x'.repeat(4000);

type Values = Record<string, string | null>;

/** Every request for these endpoints. `includeWrites` adds the operations that write or send. */
export function planRequests(
  endpoints: readonly DescribedEndpoint[],
  data: KnownData,
  includeWrites: boolean,
): PlannedRequest[] {
  const planned: PlannedRequest[] = [];
  for (const endpoint of endpoints) {
    const base = `/${endpoint.name}.asmx`;
    const document = (label: string, path: string) =>
      planned.push({
        endpoint: endpoint.name,
        operation: null,
        binding: 'document',
        case: label,
        request: { method: 'GET', path, headers: {}, body: '' },
      });
    document('wsdl', `${base}?wsdl`);
    document('disco', `${base}?disco`);
    document('help', base);
    for (const operation of endpoint.operations) {
      if (operationKind(operation.name) === 'write' && !includeWrites) continue;
      document('help-operation', `${base}?op=${encodeURIComponent(operation.name)}`);
      const cases: [string, Values, boolean][] = [
        ...knownValues(operation, data).map((values, i): [string, Values, boolean] => [
          i === 0 ? 'known' : `known-${i + 1}`,
          values,
          false,
        ]),
        ['unknown', fill(operation, UNKNOWN, '9'), false],
        ['empty', fill(operation, '', ''), false],
        ['missing', fill(operation, null, null), false],
        ['letter-case', knownValues(operation, data)[0] ?? fill(operation, UNKNOWN, '9'), true],
        ['arabic-xml', fill(operation, ARABIC_XML, 'ع'), false],
        ['long', fill(operation, LONG, LONG), false],
      ];
      for (const [label, values, otherCase] of cases) {
        for (const binding of ['soap11', 'soap12', 'http_get', 'http_post'] as const) {
          planned.push({
            endpoint: endpoint.name,
            operation: operation.name,
            binding,
            case: label,
            request: buildRequest(endpoint, operation, binding, values, { otherCase }),
          });
        }
      }
      const known = knownValues(operation, data)[0] ?? fill(operation, UNKNOWN, '9');
      const extra = (binding: 'soap11' | 'soap12', label: string, request: RecordedRequest) =>
        planned.push({ endpoint: endpoint.name, operation: operation.name, binding, case: label, request });
      extra(
        'soap11',
        'wrong-soapaction',
        buildRequest(endpoint, operation, 'soap11', known, { action: `${operation.soapAction}X` }),
      );
      extra('soap12', 'no-action', buildRequest(endpoint, operation, 'soap12', known, { action: null }));
      for (const binding of ['soap11', 'soap12'] as const) {
        const whole = buildRequest(endpoint, operation, binding, known, {});
        extra(binding, 'malformed-envelope', {
          ...whole,
          body: whole.body.slice(0, Math.floor(whole.body.length * 0.7)),
        });
      }
    }
  }
  return planned;
}

/** One operation's arguments, every one given. */
type KnownArgs<K extends WireOperationName> = { readonly [P in keyof WireOperations[K]['args']]: string };

// The values of the data that exist, per operation of the contract: an
// operation missing here, or a parameter it lacks or misspells, does not
// compile.
const KNOWN: { readonly [K in WireOperationName]: (data: KnownData) => KnownArgs<K>[] } = {
  AuthCode: () => [{ code: '1234', phone: 'not-a-phone' }], // never a real phone: a refusal is compared, no SMS sent
  GetStudentsAbcenceByID: (data) => data.absenceStudents.map((STDid) => ({ STDid })),
  GetStudentsAudtiNote: (data) =>
    data.auditNotes.map((note) => ({ SubjectID: note.subjectId, Class_id: note.classId })),
  GetStudentSchool: (data) =>
    data.schools.flatMap((school) => [
      { school_base_url: school, show_active: '1' },
      { school_base_url: school, show_active: '0' },
    ]),
  SendNotificationType: (data) =>
    data.studentIds
      .slice(0, 1)
      .map((id) => ({ id, baseUrlSchool: data.schools[0] ?? UNKNOWN, TypeNotfication: 'absence' })),
  GetTokenDevice: (data) => data.deviceIds.map((id) => ({ id })),
  UpdateNoteState: (data) => data.notes.map((note) => ({ STDid: note.studentId, note_type: note.type })),
};

/**
 * The value sets of the data that exist for this operation, at most
 * KNOWN_PER_OPERATION; none for an operation the contract lacks, or one
 * whose parameters in the compared server's WSDL are not the contract's.
 */
function knownValues(operation: DescribedOperation, data: KnownData): Values[] {
  if (!isContractOperation(operation.name)) return [];
  const sets: Values[] = KNOWN[operation.name](data).slice(0, KNOWN_PER_OPERATION);
  const names = operation.parameters.map((p) => p.name).sort();
  const fits = (values: Values) => JSON.stringify(Object.keys(values).sort()) === JSON.stringify(names);
  return sets.every(fits) ? sets : [];
}

function fill(operation: DescribedOperation, text: string | null, char: string | null): Values {
  return Object.fromEntries(operation.parameters.map((p) => [p.name, p.type === 'char' ? char : text]));
}

/** One call of `operation` over `binding`; a null value is left out. */
export function buildRequest(
  endpoint: DescribedEndpoint,
  operation: DescribedOperation,
  binding: 'soap11' | 'soap12' | 'http_get' | 'http_post',
  values: Values,
  options: { readonly otherCase?: boolean; readonly action?: string | null },
): RecordedRequest {
  const named = operation.parameters.filter((p) => values[p.name] !== null && values[p.name] !== undefined);
  const nameOf = (name: string) => (options.otherCase === true ? swapCase(name) : name);
  if (binding === 'http_get' || binding === 'http_post') {
    const form = named
      .map((p) => `${encodeURIComponent(nameOf(p.name))}=${encodeURIComponent(values[p.name] ?? '')}`)
      .join('&');
    const path = `/${endpoint.name}.asmx/${operation.name}`;
    return binding === 'http_get'
      ? { method: 'GET', path: form === '' ? path : `${path}?${form}`, headers: {}, body: '' }
      : { method: 'POST', path, headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form };
  }
  const parameters = named
    .map((p) => {
      const value = values[p.name] ?? '';
      // A .NET char travels in SOAP as its UTF-16 code (docs/design.md#the-char-parameter).
      const text = p.type === 'char' && value.length === 1 ? String(value.charCodeAt(0)) : value;
      return `<${nameOf(p.name)}>${escapeText(text)}</${nameOf(p.name)}>`;
    })
    .join('');
  const envelope = binding === 'soap11' ? SOAP11 : SOAP12;
  const body =
    `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="${envelope}" ` +
    `xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema">` +
    `<soap:Body><${operation.name} xmlns="${escapeAttribute(endpoint.namespace)}">${parameters}</${operation.name}></soap:Body></soap:Envelope>`;
  const action = options.action === undefined ? operation.soapAction : options.action;
  const headers: Record<string, string> =
    binding === 'soap11'
      ? { 'content-type': 'text/xml; charset=utf-8', soapaction: `"${action ?? ''}"` }
      : {
          'content-type':
            action === null
              ? 'application/soap+xml; charset=utf-8'
              : `application/soap+xml; charset=utf-8; action="${action}"`,
        };
  return { method: 'POST', path: `/${endpoint.name}.asmx`, headers, body };
}

/** `STDid` → `stdID`: every letter in the other case. */
function swapCase(name: string): string {
  return [...name].map((c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())).join('');
}
