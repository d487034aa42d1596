// One request's two answers compared (docs/migration.md#compare): the
// status, the headers that matter, the body byte for byte, else as XML; the
// differences the ignore rules accept are explained; what is left is told
// apart as data the candidate lacks (a seeding problem) or an answer of
// another shape (a wire problem). Used by `npm run compare` and by the
// service's shadow calls alike.
import { ENDPOINTS, STUDENT_INFO_FIELDS } from '../../contract';
import type { Answer } from './exchange';
import { ruleFor, type Difference, type IgnoreRule, type RequestScope } from './ignore-rules';
import { firstXmlDifference, parseXml, textLeaves, type XmlElement } from './xml-compare';

/** The headers compared; every other header (Date, Server, X-AspNet-Version, X-Powered-By, X-Request-Id, Content-Length, …) is not. */
export const COMPARED_HEADERS = [
  'content-type',
  'cache-control',
  'www-authenticate',
  'location',
  'allow',
  'retry-after',
  'content-encoding',
  'content-disposition',
  'x-content-type-options',
] as const;

export type Outcome = 'same_bytes' | 'same_xml' | 'explained' | 'noise' | 'differs' | 'error';

/** Why the candidate differs: it lacks data the primary has, holds other values, or answers differently. */
export type DifferenceKind = 'missing_data' | 'other_data' | 'wire';

export interface Comparison {
  readonly outcome: Exclude<Outcome, 'noise' | 'error'>;
  readonly differences: readonly Difference[];
  /** The differences no rule accepts. */
  readonly unexplained: readonly Difference[];
  /** The rules that accepted a difference, once each. */
  readonly rulesUsed: readonly string[];
  /** Set when something is unexplained. */
  readonly kind: DifferenceKind | null;
}

/**
 * Where each answer came from: its server's addresses are replaced in bodies
 * and headers before comparing (a `?wsdl` names one). Several per side when a
 * server names itself otherwise than it was reached (behind a proxy, the
 * legacy names its internal address: `learnSelfAddresses`).
 */
export interface Origins {
  readonly primary: string | readonly string[];
  readonly candidate: string | readonly string[];
}

/** The values a stored record fills in: StudentInfo's fields and the string results. */
const DATA_ELEMENTS = new Set<string>([
  ...STUDENT_INFO_FIELDS.map((field) => field.wireName),
  'string',
  ...ENDPOINTS.flatMap((endpoint) =>
    endpoint.operations.filter((op) => op.result === 'string').map((op) => `${op.wireName}Result`),
  ),
]);

/** A fault that says a record was not found. */
const NOT_FOUND = /\b(no student|not found|unknown|does not exist|no device)\b/i;

export function compareAnswers(
  primary: Answer,
  candidate: Answer,
  scope: RequestScope,
  rules: readonly IgnoreRule[],
  origins?: Origins,
): Comparison {
  const left = normalised(primary.body, origins?.primary);
  const right = normalised(candidate.body, origins?.candidate);
  const differences: Difference[] = [];
  if (primary.status !== candidate.status)
    differences.push({ target: 'status', primary: String(primary.status), candidate: String(candidate.status) });
  for (const name of COMPARED_HEADERS) {
    const a = headerValue(primary.headers[name], name, origins?.primary);
    const b = headerValue(candidate.headers[name], name, origins?.candidate);
    if (a !== b) differences.push({ target: 'header', name, primary: a ?? '(none)', candidate: b ?? '(none)' });
  }
  let sameBytes = left.equals(right);
  let leftXml: XmlElement | null = null;
  let rightXml: XmlElement | null = null;
  if (!sameBytes) {
    const leftText = left.toString('utf8');
    const rightText = right.toString('utf8');
    leftXml = looksLikeXml(leftText) ? parseXml(leftText) : null;
    rightXml = looksLikeXml(rightText) ? parseXml(rightText) : null;
    if (leftXml !== null && rightXml !== null) {
      const difference = firstXmlDifference(leftXml, rightXml);
      if (difference !== null) differences.push({ target: 'body', path: difference.path, what: difference.what });
    } else {
      differences.push({ target: 'body', path: firstDifferentLine(leftText, rightText), what: 'text' });
    }
  }
  const rulesUsed = new Set<string>();
  const unexplained: Difference[] = [];
  for (const difference of differences) {
    const rule = ruleFor(rules, scope, difference);
    if (rule === null) unexplained.push(difference);
    else rulesUsed.add(rule.id);
  }
  if (differences.length > 0) sameBytes = false;
  const outcome =
    differences.length === 0
      ? sameBytes
        ? 'same_bytes'
        : 'same_xml'
      : unexplained.length === 0
        ? 'explained'
        : 'differs';
  return {
    outcome,
    differences,
    unexplained,
    rulesUsed: [...rulesUsed],
    kind: outcome === 'differs' ? kindOf(primary, candidate, leftXml, rightXml, unexplained) : null,
  };
}

/** A key naming where a difference is, the same whichever servers were compared (for the noise filter). */
export function differenceKey(difference: Difference): string {
  if (difference.target === 'status') return 'status';
  if (difference.target === 'header') return `header:${difference.name}`;
  return `body:${difference.path}`;
}

function kindOf(
  primary: Answer,
  candidate: Answer,
  left: XmlElement | null,
  right: XmlElement | null,
  unexplained: readonly Difference[],
): DifferenceKind {
  // The primary answered, the candidate says the record is not there.
  if (primary.status < 300 && candidate.status >= 500 && NOT_FOUND.test(candidate.body.toString('utf8')))
    return 'missing_data';
  if (left === null || right === null || primary.status !== candidate.status) return 'wire';
  if (unexplained.some((d) => d.target !== 'body' || (d.what !== 'text' && d.what !== 'children'))) return 'wire';
  const a = textLeaves(left).filter((leaf) => DATA_ELEMENTS.has(leaf.local));
  const b = textLeaves(right).filter((leaf) => DATA_ELEMENTS.has(leaf.local));
  // Everything the candidate holds, the primary holds too, and more: records missing.
  if (b.length < a.length) {
    const remaining = a.map((leaf) => `${leaf.local}\u0000${leaf.text}`);
    const subset = b.every((leaf) => {
      const at = remaining.indexOf(`${leaf.local}\u0000${leaf.text}`);
      if (at >= 0) remaining.splice(at, 1);
      return at >= 0;
    });
    if (subset) return 'missing_data';
  }
  // The same shape, and every text that differs is a stored value (a name, a token), wherever it sorts.
  const leftLeaves = textLeaves(left);
  const rightLeaves = textLeaves(right);
  const sameShape =
    leftLeaves.length === rightLeaves.length && leftLeaves.every((leaf, i) => leaf.path === rightLeaves[i].path);
  if (sameShape && leftLeaves.every((leaf, i) => leaf.text === rightLeaves[i].text || DATA_ELEMENTS.has(leaf.local)))
    return 'other_data';
  return 'wire';
}

/** A side's addresses, the longest first, so that a longer one is replaced before a shorter one it holds. */
function addressesOf(origin: string | readonly string[] | undefined): string[] {
  const list = origin === undefined ? [] : typeof origin === 'string' ? [origin] : [...origin];
  return [...new Set(list.map((address) => address.replace(/\/+$/, '')).filter((address) => address !== ''))].sort(
    (a, b) => b.length - a.length,
  );
}

function normalised(body: Buffer, origin: string | readonly string[] | undefined): Buffer {
  const addresses = addressesOf(origin);
  if (addresses.length === 0) return body;
  let text = body.toString('utf8');
  const before = text;
  for (const address of addresses) text = text.split(address).join('{server}');
  for (const address of addresses) {
    const host = new URL(address).host;
    text = text.split(host).join('{server-host}');
  }
  return text === before ? body : Buffer.from(text, 'utf8');
}

function headerValue(
  value: string | undefined,
  name: string,
  origin: string | readonly string[] | undefined,
): string | undefined {
  if (value === undefined) return undefined;
  let v = value.trim();
  if (name === 'content-type')
    v = v
      .toLowerCase()
      .replace(/\s*;\s*/g, '; ')
      .replace(/\s*=\s*/g, '=');
  for (const address of addressesOf(origin)) v = v.split(address).join('{server}');
  return v;
}

function looksLikeXml(text: string): boolean {
  return text.trimStart().startsWith('<');
}

/** `line N` of the first line that differs in two texts (bodies that are not both XML). */
function firstDifferentLine(a: string, b: string): string {
  const left = a.split('\n');
  const right = b.split('\n');
  for (let i = 0; i < Math.max(left.length, right.length); i++) if (left[i] !== right[i]) return `line ${i + 1}`;
  return 'line 1';
}
