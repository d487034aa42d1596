// Accepted differences (docs/migration.md#ignore-rules): each rule names where
// it applies (operation, binding, request case) and what it accepts (a
// header, an XML path, the status, any body difference), with the reason.
// docs/asmx-differences.yaml is the set for this service's deliberate
// departures from ASMX.
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';

/** What one request was, for the rules' scopes. */
export interface RequestScope {
  /** Operation called, or null for documents (`?wsdl`, `?disco`, help pages) and requests routed nowhere. */
  readonly operation: string | null;
  /** `soap11`, `soap12`, `http_get`, `http_post`, `document`. */
  readonly binding: string;
  /** The generated case (`known`, `malformed-envelope`, …) or `replayed`. */
  readonly case: string;
}

/** One difference between two answers; `path` is an XML path or a line of a text body. */
export type Difference =
  | { readonly target: 'status'; readonly primary: string; readonly candidate: string }
  | { readonly target: 'header'; readonly name: string; readonly primary: string; readonly candidate: string }
  | { readonly target: 'body'; readonly path: string; readonly what: string };

export interface IgnoreRule {
  readonly id: string;
  readonly reason: string;
  /** Where the rule is explained (`design.md#rule-14`), for the deliberate differences. */
  readonly anchor?: string;
  readonly operations: readonly string[] | null;
  readonly bindings: readonly string[] | null;
  readonly cases: readonly RegExp[] | null;
  readonly status: boolean;
  readonly headers: readonly string[];
  readonly paths: readonly RegExp[];
  readonly body: boolean;
}

export class IgnoreFileError extends Error {
  override readonly name = 'IgnoreFileError';
}

const BINDINGS = new Set(['soap11', 'soap12', 'http_get', 'http_post', 'document']);
const KEYS = new Set(['id', 'reason', 'anchor', 'operation', 'binding', 'case', 'status', 'header', 'path', 'body']);
const MAX_RULES = 1000;

/** Reads an ignore file (`.json`: JSON, anything else: YAML); throws IgnoreFileError naming each problem. */
export function readIgnoreFile(file: string): IgnoreRule[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new IgnoreFileError(`${file} cannot be read: ${(err as NodeJS.ErrnoException).code ?? String(err)}.`);
  }
  let value: unknown;
  try {
    value = file.toLowerCase().endsWith('.json') ? JSON.parse(text) : parseYaml(text);
  } catch (err) {
    throw new IgnoreFileError(
      `${file} is not valid ${file.endsWith('.json') ? 'JSON' : 'YAML'}: ${(err as Error).message}`,
    );
  }
  return parseIgnoreRules(value, file);
}

/** The rules of a parsed ignore document (`{rules: [...]}`). */
export function parseIgnoreRules(value: unknown, source: string): IgnoreRule[] {
  const list = typeof value === 'object' && value !== null ? (value as { rules?: unknown }).rules : undefined;
  if (!Array.isArray(list)) throw new IgnoreFileError(`${source}: expected an object with a list under "rules".`);
  if (list.length > MAX_RULES) throw new IgnoreFileError(`${source}: at most ${MAX_RULES} rules.`);
  const problems: string[] = [];
  const rules: IgnoreRule[] = [];
  const ids = new Set<string>();
  list.forEach((entry: unknown, i) => {
    const where = `${source}: rules[${i}]`;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      problems.push(`${where} is not an object.`);
      return;
    }
    const e = entry as Record<string, unknown>;
    for (const key of Object.keys(e)) if (!KEYS.has(key)) problems.push(`${where}: unknown key "${key}".`);
    const id = typeof e.id === 'string' && e.id.trim() !== '' ? e.id.trim() : `rule-${i + 1}`;
    if (ids.has(id)) problems.push(`${where}: id "${id}" is used twice.`);
    ids.add(id);
    if (typeof e.reason !== 'string' || e.reason.trim() === '') problems.push(`${where}: a reason is required.`);
    const operations = stringsOf(e.operation, `${where}.operation`, problems);
    const bindings = stringsOf(e.binding, `${where}.binding`, problems);
    for (const binding of bindings ?? [])
      if (!BINDINGS.has(binding))
        problems.push(`${where}.binding: "${binding}" is none of ${[...BINDINGS].join(', ')}.`);
    const cases = stringsOf(e.case, `${where}.case`, problems);
    const headers = stringsOf(e.header, `${where}.header`, problems) ?? [];
    const paths = stringsOf(e.path, `${where}.path`, problems) ?? [];
    for (const flag of ['status', 'body'] as const)
      if (e[flag] !== undefined && typeof e[flag] !== 'boolean')
        problems.push(`${where}.${flag} must be true or false.`);
    const status = e.status === true;
    const body = e.body === true;
    if (!status && !body && headers.length === 0 && paths.length === 0)
      problems.push(`${where} accepts nothing: give header, path, status: true or body: true.`);
    if (e.anchor !== undefined && typeof e.anchor !== 'string') problems.push(`${where}.anchor must be text.`);
    rules.push({
      id,
      reason: typeof e.reason === 'string' ? e.reason.trim() : '',
      anchor: typeof e.anchor === 'string' ? e.anchor : undefined,
      operations,
      bindings,
      cases: cases === null ? null : cases.map(glob),
      status,
      headers: headers.map((h) => h.toLowerCase()),
      paths: paths.map(glob),
      body,
    });
  });
  if (problems.length > 0) throw new IgnoreFileError(problems.join('\n'));
  return rules;
}

/** The first rule that accepts `difference` for this request, or null. */
export function ruleFor(rules: readonly IgnoreRule[], scope: RequestScope, difference: Difference): IgnoreRule | null {
  for (const rule of rules) {
    if (rule.operations !== null && !rule.operations.includes(scope.operation ?? '')) continue;
    if (rule.bindings !== null && !rule.bindings.includes(scope.binding)) continue;
    if (rule.cases !== null && !rule.cases.some((c) => c.test(scope.case))) continue;
    if (difference.target === 'status' && rule.status) return rule;
    if (difference.target === 'header' && rule.headers.includes(difference.name)) return rule;
    if (difference.target === 'body' && (rule.body || rule.paths.some((p) => p.test(difference.path)))) return rule;
  }
  return null;
}

function stringsOf(value: unknown, where: string, problems: string[]): string[] | null {
  if (value === undefined) return null;
  const list = Array.isArray(value) ? value : [value];
  if (list.length === 0 || list.some((v) => typeof v !== 'string' || v.trim() === '' || v.length > 500)) {
    problems.push(`${where} must be a name or a list of names.`);
    return null;
  }
  return (list as string[]).map((v) => v.trim());
}

/** `*` any run of characters but `/`, `**` any run at all; the rest literal. */
function glob(pattern: string): RegExp {
  const source = pattern
    .split(/(\*\*|\*)/)
    .map((part) => (part === '**' ? '.*' : part === '*' ? '[^/]*' : part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${source}$`);
}
