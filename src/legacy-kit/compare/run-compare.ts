// Sends every request to the primary, the candidate and (when given) a
// second instance of the primary, and compares the answers
// (docs/migration.md#compare). A difference the two primaries also show
// between themselves is noise (a clock, a generated id), reported apart.
import { ENDPOINTS } from '../../contract';
import { compareAnswers, differenceKey, type Comparison, type Outcome } from './compare-answers';
import type { Answer } from './exchange';
import type { PlannedRequest } from './generate-requests';
import type { Difference, IgnoreRule } from './ignore-rules';
import { sendRequest } from './send-request';

export interface Servers {
  readonly primary: string;
  readonly secondary?: string;
  readonly candidate: string;
}

export interface CompareRunOptions {
  readonly servers: Servers;
  readonly requests: readonly PlannedRequest[];
  readonly rules: readonly IgnoreRule[];
  readonly concurrency: number;
  readonly timeoutMs: number;
  readonly maxAnswerBytes: number;
  /**
   * An Authorization header for a server (its Basic credentials), added to
   * each request as it is sent: never part of the request the reports show.
   */
  readonly authorization?: Partial<Record<keyof Servers, string>>;
}

export interface CompareEntry {
  readonly planned: PlannedRequest;
  readonly outcome: Outcome;
  readonly comparison: Comparison | null;
  /** Differences the primaries show between themselves too. */
  readonly noise: readonly Difference[];
  readonly primary: Answer | null;
  readonly candidate: Answer | null;
  /** Why a server could not be asked. */
  readonly error: string | null;
}

export interface CompareResult {
  readonly servers: Servers;
  readonly entries: readonly CompareEntry[];
  readonly rules: readonly IgnoreRule[];
  /** Rule id → differences it accepted. */
  readonly ruleUses: ReadonlyMap<string, number>;
}

/**
 * The addresses a server names itself by in its `?wsdl` (`soap:address`),
 * without the endpoint's file name, besides the one it was reached at. Behind
 * a proxy the legacy names its internal address there, and in `?disco` and
 * its help pages alike: both sides' own names are then the same `{server}`.
 * A server that does not answer names nothing more.
 */
export async function learnSelfAddresses(
  base: string,
  send: (base: string, path: string) => Promise<Answer>,
): Promise<string[]> {
  const addresses = [base];
  const endpoint = ENDPOINTS[0].name;
  try {
    const answer = await send(base, `/${endpoint}.asmx?wsdl`);
    if (answer.status !== 200) return addresses;
    const wsdl = answer.body.toString('utf8');
    for (const match of wsdl.matchAll(/<(?:\w+:)?address\b[^>]*\blocation="([^"]+)"/g)) {
      const location = match[1].replace(/&amp;/g, '&');
      const suffix = `/${endpoint}.asmx`;
      if (!location.toLowerCase().endsWith(suffix.toLowerCase())) continue;
      const named = location.slice(0, -suffix.length);
      if (URL.canParse(named) && /^https?:$/.test(new URL(named).protocol)) addresses.push(named);
    }
  } catch {
    // Not reachable now: the comparison itself reports it.
  }
  return [...new Set(addresses)];
}

export async function runComparison(options: CompareRunOptions): Promise<CompareResult> {
  const { servers } = options;
  const entries: CompareEntry[] = new Array<CompareEntry>(options.requests.length);
  const ruleUses = new Map<string, number>(options.rules.map((rule) => [rule.id, 0]));
  const headersFor = (server: keyof Servers, headers: Readonly<Record<string, string>>) => {
    const authorization = options.authorization?.[server];
    return authorization === undefined ? headers : { ...headers, authorization };
  };
  const send = (server: keyof Servers, planned: PlannedRequest) =>
    sendRequest(
      servers[server] as string,
      { ...planned.request, headers: headersFor(server, planned.request.headers) },
      { timeoutMs: options.timeoutMs, maxAnswerBytes: options.maxAnswerBytes },
    );
  const namesOf = (server: keyof Servers) =>
    learnSelfAddresses(servers[server] as string, (base, path) =>
      sendRequest(
        base,
        { method: 'GET', path, headers: headersFor(server, {}), body: '' },
        { timeoutMs: options.timeoutMs, maxAnswerBytes: options.maxAnswerBytes },
      ),
    );
  const [primaryNames, candidateNames, secondaryNames] = await Promise.all([
    namesOf('primary'),
    namesOf('candidate'),
    servers.secondary === undefined ? Promise.resolve([]) : namesOf('secondary'),
  ]);
  let next = 0;
  const worker = async () => {
    while (next < options.requests.length) {
      const at = next++;
      const planned = options.requests[at];
      entries[at] = await compareOne(planned);
    }
  };
  const compareOne = async (planned: PlannedRequest): Promise<CompareEntry> => {
    const scope = { operation: planned.operation, binding: planned.binding, case: planned.case };
    let primary: Answer | null = null;
    let candidate: Answer | null = null;
    try {
      // One after the other, primary first: a server's answer may depend on what was asked before.
      primary = await send('primary', planned);
      candidate = await send('candidate', planned);
      const secondary = servers.secondary === undefined ? null : await send('secondary', planned);
      const comparison = compareAnswers(primary, candidate, scope, options.rules, {
        primary: primaryNames,
        candidate: candidateNames,
      });
      for (const id of comparison.rulesUsed) ruleUses.set(id, (ruleUses.get(id) ?? 0) + 1);
      let noise: Difference[] = [];
      let outcome: Outcome = comparison.outcome;
      if (secondary !== null && comparison.outcome === 'differs' && servers.secondary !== undefined) {
        const between = compareAnswers(primary, secondary, scope, [], {
          primary: primaryNames,
          candidate: secondaryNames,
        });
        const noisy = new Set(between.differences.map(differenceKey));
        noise = comparison.unexplained.filter((d) => noisy.has(differenceKey(d)));
        if (noise.length === comparison.unexplained.length) outcome = 'noise';
      }
      return { planned, outcome, comparison, noise, primary, candidate, error: null };
    } catch (err) {
      return {
        planned,
        outcome: 'error',
        comparison: null,
        noise: [],
        primary,
        candidate,
        error: `${primary === null ? 'primary' : 'candidate or secondary'}: ${(err as Error).message}`,
      };
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.concurrency) }, worker));
  return { servers, entries, rules: options.rules, ruleUses };
}

/** Whether anything differs that no rule explains and the primaries do not share (or a server could not be asked). */
export function hasUnexplained(result: CompareResult): boolean {
  return result.entries.some((entry) => entry.outcome === 'differs' || entry.outcome === 'error');
}
