// The ACCESS_POLICY file (docs/security.md): read as YAML or JSON, checked
// with zod, and compiled into one resolved rule per endpoint and operation of
// the contract, so that a call looks its rule up instead of merging it.
import { readFileSync } from 'node:fs';
import { BlockList, isIP } from 'node:net';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { ENDPOINTS, operationTraits } from '../contract';
import type { RateRule } from './contracts';
import { parseRateEntry } from '../shared/rate-entry';

export const DEFAULT_REALM = 'Student Notification Service';

export class PolicyError extends Error {
  override readonly name = 'PolicyError';
}

// bcrypt's modular crypt format, as bcryptjs and htpasswd -B write it.
const BCRYPT_HASH = /^\$2[aby]\$(0[4-9]|[12][0-9]|3[01])\$[./A-Za-z0-9]{53}$/;
/** A Basic user name: no colon (it ends the name in the header) and no spaces. */
export const USER_NAME = /^[^:\s]{1,64}$/;

/** `COUNT/DURATION`, such as `120/1m` or `30/m`; units s, m, h, d; at most 30 days. */
export function parseRate(text: string): RateRule | null {
  const entry = parseRateEntry(text);
  return entry === null ? null : { max: entry.max, windowMs: entry.windowSeconds * 1000 };
}

const rate = z.string().transform((text, ctx) => {
  const rule = parseRate(text);
  if (rule === null) {
    ctx.addIssue({
      code: 'custom',
      message: `"${text}" is not a budget; write COUNT/DURATION such as 120/1m (units s, m, h, d; at most 30d)`,
    });
    return z.NEVER;
  }
  return rule;
});

const ruleSchema = z
  .object({
    allow: z.array(z.string().trim().min(1)).optional(),
    auth: z.enum(['none', 'basic']).optional(),
    users: z.array(z.string()).optional(),
    limit: rate.optional(),
    enumeration: rate.optional(),
    /** Only under an operation that reads personal data: yes, it may stay open to everyone (see failClosed). */
    open: z.boolean().optional(),
  })
  .strict();

const policySchema = z
  .object({
    realm: z
      .string()
      .trim()
      .min(1)
      .max(200)
      // eslint-disable-next-line no-control-regex -- a realm is sent inside a quoted header value
      .refine((v) => !/["\\\u0000-\u001f\u007f]/.test(v), 'must not hold quotes, backslashes or control characters')
      .optional(),
    documents: z.enum(['follow', 'open']).optional(),
    users: z
      .record(
        z.string().regex(USER_NAME, 'a user name has no colon or spaces and at most 64 characters'),
        z.string().regex(BCRYPT_HASH, 'must be a bcrypt hash ($2b$...); make one with npm run user -- add NAME'),
      )
      .nullish(),
    networks: z.record(z.string(), z.array(z.string().trim().min(1))).nullish(),
    default: ruleSchema.optional(),
    endpoints: z.record(z.string(), z.record(z.string(), ruleSchema).nullish()).nullish(),
  })
  .strict();

type RuleInput = z.infer<typeof ruleSchema>;
type PolicyInput = z.infer<typeof policySchema>;

/** One operation's rule, every field merged and resolved. */
export interface ResolvedRule {
  /** Null: every address (no `allow`, or one that covers everything). */
  readonly allow: BlockList | null;
  /** Whether `allow` lets this caller address in; remembered per address (a BlockList check costs microseconds). */
  allows(address: string | null): boolean;
  readonly auth: 'none' | 'basic';
  /** With `auth: basic`: who may call; null: every user of the policy. */
  readonly users: ReadonlySet<string> | null;
  readonly limit: RateRule | null;
  readonly enumeration: RateRule | null;
}

/** What a policy leaves reachable by anyone: logged at start and on reload. */
export interface PolicyExposure {
  /** Operations reading personal data that every address may call without credentials or budgets (each said `open: true`). */
  readonly open: readonly string[];
  /** Operations reading personal data that every address may call without credentials, within budgets only. */
  readonly budgetedOnly: readonly {
    readonly operation: string;
    readonly limit: string | null;
    readonly enumeration: string | null;
  }[];
}

export interface Policy {
  readonly realm: string;
  readonly documents: 'follow' | 'open';
  /** User name -> bcrypt hash. */
  readonly users: ReadonlyMap<string, string>;
  /** The top default: the rule of `/`, the help pages' list of endpoints. */
  readonly serviceRule: ResolvedRule;
  /** The rule of an endpoint's documents (its default) and of each operation; endpoint names lower-cased. */
  endpointRule(endpoint: string): ResolvedRule | undefined;
  operationRule(endpoint: string, operation: string): ResolvedRule | undefined;
  readonly exposure: PolicyExposure;
}

/** Reads and checks a policy file; throws PolicyError listing every problem with the path of its key. */
export function loadPolicyFile(file: string): Policy {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new PolicyError(`ACCESS_POLICY: cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  return parsePolicy(text, file);
}

/** Parses policy text (JSON when the file name ends in .json, YAML otherwise, YAML being a superset of JSON). */
/** `failClosed: false` checks the file's shape only, for the users command, which edits a policy that may not be finished yet. */
export interface PolicyChecks {
  readonly failClosed?: boolean;
}

export function parsePolicy(text: string, file = 'policy.yaml', checks: PolicyChecks = {}): Policy {
  let raw: unknown;
  try {
    raw = file.toLowerCase().endsWith('.json') ? JSON.parse(text) : parseYaml(text, { prettyErrors: true });
  } catch (err) {
    throw new PolicyError(
      `ACCESS_POLICY: ${file} is not valid ${file.toLowerCase().endsWith('.json') ? 'JSON' : 'YAML'}: ${(err as Error).message.split('\n')[0]}`,
    );
  }
  if (checks.failClosed !== false && setsNothing(raw)) {
    throw new PolicyError(
      `ACCESS_POLICY: ${file} sets nothing (it is empty or holds only comments); a policy must say who may call what (docs/security.md#recommended-policy)`,
    );
  }
  return compilePolicy(raw ?? {}, file, checks);
}

function setsNothing(raw: unknown): boolean {
  return (
    raw === null ||
    raw === undefined ||
    (typeof raw === 'object' && !Array.isArray(raw) && Object.keys(raw).length === 0)
  );
}

export function compilePolicy(raw: unknown, file = 'policy', checks: PolicyChecks = {}): Policy {
  const parsed = policySchema.safeParse(raw);
  if (!parsed.success) {
    // The addresses are checked too, as far as the file's shape lets them be
    // read, so that one pass names every problem (test/access/policy.test.ts).
    throw problemsError(file, [
      ...parsed.error.issues.map((issue) => `${keyPath(issue.path)}: ${issue.message}`),
      ...addressProblems(raw),
    ]);
  }
  const input = parsed.data;
  const problems: string[] = [];
  const networks = checkNetworks(input, problems);
  const users = new Map(Object.entries(input.users ?? {}));
  const compile = (rule: MergedRule, at: string): ResolvedRule => resolveRule(rule, at, networks, users, problems);

  if (input.default?.open !== undefined) problems.push(OPEN_PER_OPERATION('default'));
  const top: MergedRule = { allow: ['0.0.0.0/0', '::/0'], auth: 'none', ...defined(input.default ?? {}) };
  const serviceRule = compile(top, 'default');
  const byEndpoint = new Map<string, { rule: ResolvedRule; operations: Map<string, ResolvedRule> }>();
  const exposure: { open: string[]; budgetedOnly: PolicyExposure['budgetedOnly'][number][] } = {
    open: [],
    budgetedOnly: [],
  };
  const given = new Map<string, [string, Record<string, RuleInput>]>();
  for (const [name, section] of Object.entries(input.endpoints ?? {})) {
    const spec = ENDPOINTS.find(
      (e) => `${e.name}.asmx`.toLowerCase() === name.toLowerCase() || e.name.toLowerCase() === name.toLowerCase(),
    );
    if (spec === undefined) {
      problems.push(
        `endpoints.${name}: no such endpoint; the endpoints are ${ENDPOINTS.map((e) => `${e.name}.asmx`).join(', ')}`,
      );
      continue;
    }
    for (const key of Object.keys(section ?? {})) {
      if (key !== 'default' && !spec.operations.some((op) => op.wireName === key)) {
        problems.push(
          `endpoints.${name}.${key}: ${spec.name}.asmx has no operation ${key} (it has ${spec.operations.map((op) => op.wireName).join(', ')}; names are case-sensitive)`,
        );
      }
    }
    given.set(spec.name.toLowerCase(), [name, section ?? {}]);
  }
  for (const spec of ENDPOINTS) {
    const [name, section] = given.get(spec.name.toLowerCase()) ?? [`${spec.name}.asmx`, {}];
    if (section.default?.open !== undefined) problems.push(OPEN_PER_OPERATION(`endpoints.${name}.default`));
    const endpointDefault: MergedRule = { ...top, ...defined(section.default ?? {}) };
    const operations = new Map<string, ResolvedRule>();
    for (const op of spec.operations) {
      const at = `endpoints.${name}.${op.wireName}`;
      const rule = compile({ ...endpointDefault, ...defined(section[op.wireName] ?? {}) }, at);
      operations.set(op.wireName, rule);
      const said = section[op.wireName]?.open;
      if (said !== undefined && !readsPersonalData(op.wireName))
        problems.push(`${at}.open: ${op.wireName} reads no personal data; open is only for those that do`);
      if (readsPersonalData(op.wireName) && isOpen(rule)) {
        if (said === true) exposure.open.push(op.wireName);
        else if (checks.failClosed !== false) problems.push(`${at}: ${OPEN_REFUSED(op.wireName)}`);
      } else if (readsPersonalData(op.wireName) && rule.allow === null && rule.auth === 'none') {
        exposure.budgetedOnly.push({
          operation: op.wireName,
          limit: describeRule(rule.limit),
          enumeration: describeRule(rule.enumeration),
        });
      }
    }
    byEndpoint.set(spec.name.toLowerCase(), {
      rule: compile(endpointDefault, `endpoints.${name}.default`),
      operations,
    });
  }
  if (problems.length > 0) throw problemsError(file, [...new Set(problems)]);

  return {
    realm: input.realm ?? DEFAULT_REALM,
    documents: input.documents ?? 'follow',
    users,
    serviceRule,
    endpointRule: (endpoint) => byEndpoint.get(endpoint.toLowerCase())?.rule,
    operationRule: (endpoint, operation) => byEndpoint.get(endpoint.toLowerCase())?.operations.get(operation),
    exposure,
  };
}

type MergedRule = Omit<RuleInput, 'allow'> & { allow?: readonly string[] };

/**
 * Fail closed: an operation that reads personal data (its traits say so,
 * src/contract/operation-traits.ts) is open to every address, without
 * credentials and without budgets, only when the policy says so for that
 * operation (`open: true`). A policy that forgot a rule must not answer
 * children's names to anyone.
 */
function readsPersonalData(operation: string): boolean {
  return operationTraits(operation)?.readsPersonalData === true;
}

function isOpen(rule: ResolvedRule): boolean {
  return rule.allow === null && rule.auth === 'none' && rule.limit === null && rule.enumeration === null;
}

const OPEN_REFUSED = (operation: string) =>
  `${operation} reads personal data and would be open to every address without credentials or budgets; ` +
  'restrict it (allow, auth: basic, limit or enumeration) or, if it must stay open, say open: true under this operation';

const OPEN_PER_OPERATION = (at: string) =>
  `${at}.open: open is said of one operation at a time, under endpoints.E.asmx.Operation`;

function describeRule(rule: RateRule | null): string | null {
  return rule === null ? null : `${rule.max}/${rule.windowMs / 1000}s`;
}

/** Only the keys a rule sets, so that spreading it leaves the others' values alone. */
function defined(rule: RuleInput): RuleInput {
  return Object.fromEntries(Object.entries(rule).filter(([, v]) => v !== undefined));
}

function resolveRule(
  rule: MergedRule,
  at: string,
  networks: Map<string, string[]>,
  users: Map<string, string>,
  problems: string[],
): ResolvedRule {
  const auth = rule.auth ?? 'none';
  if (auth === 'basic' && users.size === 0)
    problems.push(`${at}: auth is basic but the policy has no users (add one with npm run user -- add NAME)`);
  for (const user of rule.users ?? []) {
    if (!users.has(user)) problems.push(`${at}.users: no user ${user} under users`);
  }
  const allow = blockListOf(rule.allow ?? ['0.0.0.0/0', '::/0'], `${at}.allow`, networks, problems);
  return {
    allow,
    allows: allow === null ? () => true : rememberedMatch(allow),
    auth,
    users: auth === 'basic' && rule.users !== undefined ? new Set(rule.users) : null,
    limit: rule.limit ?? null,
    enumeration: rule.enumeration ?? null,
  };
}

/** The address problems of a file whose shape is wrong elsewhere: every `networks` entry and `allow` list that has the right shape. */
function addressProblems(raw: unknown): string[] {
  const problems: string[] = [];
  if (!isRecord(raw)) return problems;
  const networks = checkNetworks(
    {
      networks: isRecord(raw.networks)
        ? Object.fromEntries(Object.entries(pick(raw.networks, isStringList)).map(([k, v]) => [k, trimmed(v)]))
        : {},
    },
    problems,
  );
  const checkAllow = (rule: unknown, at: string) => {
    if (isRecord(rule) && isStringList(rule.allow)) blockListOf(trimmed(rule.allow), `${at}.allow`, networks, problems);
  };
  checkAllow(raw.default, 'default');
  if (isRecord(raw.endpoints)) {
    for (const [name, section] of Object.entries(raw.endpoints)) {
      if (!isRecord(section)) continue;
      for (const [key, rule] of Object.entries(section)) checkAllow(rule, `endpoints.${name}.${key}`);
    }
  }
  return problems;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isStringList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((entry) => typeof entry === 'string');
}

/** As the schema reads a list of addresses: each entry trimmed. */
const trimmed = (list: readonly string[]) => list.map((entry) => entry.trim());

function pick<T>(record: Record<string, unknown>, keep: (value: unknown) => value is T): Record<string, T> {
  return Object.fromEntries(Object.entries(record).filter((entry): entry is [string, T] => keep(entry[1])));
}

function checkNetworks(input: Pick<PolicyInput, 'networks'>, problems: string[]): Map<string, string[]> {
  const networks = new Map<string, string[]>();
  for (const [name, list] of Object.entries(input.networks ?? {})) {
    if (isIP(name) !== 0 || name.includes('/')) {
      problems.push(`networks.${name}: a network name must not look like an address`);
      continue;
    }
    list.forEach((entry, i) => {
      if (parseCidr(entry) === null)
        problems.push(`networks.${name}[${i}]: "${entry}" is not an IPv4 or IPv6 address or CIDR range`);
    });
    networks.set(name, list);
  }
  return networks;
}

/** The addresses a rule lets in; null when that is every address, so the check costs nothing. */
function blockListOf(
  allow: readonly string[],
  at: string,
  networks: Map<string, string[]>,
  problems: string[],
): BlockList | null {
  const list = new BlockList();
  const spans: Span[] = [];
  allow.forEach((entry, i) => {
    const ranges = networks.get(entry) ?? [entry];
    for (const range of ranges) {
      const cidr = parseCidr(range);
      if (cidr === null) {
        if (!networks.has(entry))
          problems.push(`${at}[${i}]: "${entry}" is neither a CIDR range nor a name under networks`);
        continue;
      }
      list.addSubnet(cidr.address, cidr.prefix, cidr.family);
      spans.push(spanOf(cidr));
    }
  });
  return coversEveryAddress(spans) ? null : list;
}

/** A block of addresses as the first and last of IPv6's 128-bit numbers, an IPv4 block as its IPv4-mapped one. */
type Span = readonly [first: bigint, last: bigint];

const IPV6_LAST = (1n << 128n) - 1n;
const IPV4_MAPPED = 0xffffn << 32n;

function spanOf(cidr: { address: string; prefix: number; family: 'ipv4' | 'ipv6' }): Span {
  const bits = cidr.family === 'ipv4' ? 32 : 128;
  const value = cidr.family === 'ipv4' ? ipv4Number(cidr.address) : ipv6Number(cidr.address);
  const size = 1n << BigInt(bits - cidr.prefix);
  const first = value - (value % size) + (cidr.family === 'ipv4' ? IPV4_MAPPED : 0n);
  return [first, first + size - 1n];
}

/**
 * Whether the blocks together let in every caller, however they are spelt
 * (`::/0` alone, two `/1` halves, `::ffff:0:0/96` beside IPv6's halves). The
 * caller's address is matched by BlockList, which takes an IPv4 address and
 * its IPv4-mapped IPv6 form (`::ffff:10.0.0.1`) as the same address, for
 * IPv4 and IPv6 ranges alike (addressMatches); so the question is whether the
 * blocks, IPv4 ones put at their IPv4-mapped place, cover IPv6's whole space.
 */
function coversEveryAddress(spans: Span[]): boolean {
  let next = 0n;
  for (const [first, last] of [...spans].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))) {
    if (first > next) return false;
    if (last >= next) next = last + 1n;
    if (next > IPV6_LAST) return true;
  }
  return false;
}

function ipv4Number(address: string): bigint {
  return address.split('.').reduce((acc, part) => (acc << 8n) + BigInt(Number(part)), 0n);
}

/** An address isIP calls IPv6 (`::`, groups of hex, perhaps ending in dotted IPv4) as its 128-bit number. */
function ipv6Number(address: string): bigint {
  const plain = address.split('%')[0];
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(plain);
  const groupsText = tail === null ? plain : `${plain.slice(0, tail.index)}0:0`;
  const [head, rest] = groupsText.split('::');
  const front = head === '' ? [] : head.split(':');
  const back = rest === undefined || rest === '' ? [] : rest.split(':');
  const groups =
    rest === undefined ? front : [...front, ...Array<string>(8 - front.length - back.length).fill('0'), ...back];
  const value = groups.reduce((acc, group) => (acc << 16n) + BigInt(parseInt(group, 16)), 0n);
  return tail === null ? value : value - (value & 0xffffffffn) + ipv4Number(tail[1]);
}

/** Callers' addresses repeat: each one's answer is kept, up to a bound past which the memory starts again. */
const MAX_REMEMBERED_ADDRESSES = 10_000;

function rememberedMatch(list: BlockList): (address: string | null) => boolean {
  const known = new Map<string, boolean>();
  return (address) => {
    if (address === null) return false;
    let allowed = known.get(address);
    if (allowed === undefined) {
      allowed = addressMatches(list, address);
      if (known.size >= MAX_REMEMBERED_ADDRESSES) known.clear();
      known.set(address, allowed);
    }
    return allowed;
  };
}

/** Whether `address` (a socket's, perhaps with a zone or IPv4-mapped) is in `list`; false for one that is not an IP address. */
export function addressMatches(list: BlockList, address: string): boolean {
  const plain = address.split('%')[0];
  const version = isIP(plain);
  if (version === 0) return false;
  // BlockList matches an IPv4-mapped IPv6 address (::ffff:10.0.0.1) against IPv4 ranges, and the reverse.
  return list.check(plain, version === 4 ? 'ipv4' : 'ipv6');
}

function parseCidr(text: string): { address: string; prefix: number; family: 'ipv4' | 'ipv6' } | null {
  const [address, prefixText, extra] = text.trim().split('/');
  const version = isIP(address);
  if (version === 0 || extra !== undefined) return null;
  const family = version === 4 ? 'ipv4' : 'ipv6';
  const max = version === 4 ? 32 : 128;
  if (prefixText === undefined) return { address, prefix: max, family };
  if (!/^[0-9]{1,3}$/.test(prefixText) || Number(prefixText) > max) return null;
  return { address, prefix: Number(prefixText), family };
}

function keyPath(path: readonly PropertyKey[]): string {
  return (
    path.reduce<string>(
      (acc, key) => (typeof key === 'number' ? `${acc}[${key}]` : acc === '' ? String(key) : `${acc}.${String(key)}`),
      '',
    ) || '(top level)'
  );
}

function problemsError(file: string, problems: string[]): PolicyError {
  return new PolicyError(`ACCESS_POLICY: ${file} is not a valid policy:\n  ${problems.join('\n  ')}`);
}
