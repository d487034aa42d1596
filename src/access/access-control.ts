// The gate every operation call passes, whatever its binding, and the one in
// front of the endpoints' documents (docs/security.md). Checks in the policy's
// order: network, then Basic credentials, then the call budget, then the
// enumeration budget; and records reads of personal data, allowed or refused,
// in the audit trail.
//
// The policy in force is one object swapped whole by `reload` (SIGHUP): a
// call reads it once and finishes under it, so a reload drops no call.
import type { Logger } from 'pino';
import { ENDPOINTS, type OperationModel } from '../contract';
import { createBasicVerifier, type BasicOutcome, type BasicRefusal, type BasicVerifier } from './basic';
import { createBcryptPool, type BcryptPool } from './bcrypt-pool';
import type { AuditSubjectKind, AuditTrail, CallBudgets, EnumerationGuard, RateRule } from './contracts';
import type { RefusalReason } from './observer';
import { PolicyError, loadPolicyFile, type Policy, type ResolvedRule } from './policy';
import { callerKey } from './caller-key';
import { createLoginThrottle, type LoginThrottle, type LoginThrottleOptions } from './login-throttle';
import { subjectRule } from './subjects';

/** Why a request was not let through; the bindings write each kind (src/wire/respond.ts). */
export type AccessRefusal =
  /** 403, a one-line plain-text reason. */
  | { readonly kind: 'forbidden'; readonly message: string }
  /** 401 with `WWW-Authenticate: Basic realm="<realm>", charset="UTF-8"`, and `Retry-After` when the credentials were not checked. */
  | {
      readonly kind: 'unauthorized';
      readonly realm: string;
      readonly message: string;
      readonly retryAfterSeconds?: number;
      /** Set when failed logins spent the `limit` budget: the audit and the metrics name the budget, not the credentials. */
      readonly reason?: 'limit';
    }
  /** An ASMX client fault (plain-text 500 over GET/POST) with `Retry-After`. */
  | {
      readonly kind: 'throttled';
      readonly reason: 'limit' | 'enumeration';
      readonly message: string;
      readonly retryAfterSeconds: number;
    };

export type AccessVerdict = AccessRefusal | null;

/** What refuses a service description: the network or the credentials, never a budget. */
export type DocumentVerdict = Extract<AccessRefusal, { readonly kind: 'forbidden' | 'unauthorized' }> | null;

export interface AccessCall {
  readonly operation: OperationModel;
  /** The operation's parameters in contract order, as the binding read them. */
  readonly values: readonly (string | null)[];
  /** The caller's address, TRUST_PROXY applied. */
  readonly address: string | null;
  /** The request's Authorization header, if any. */
  readonly authorization: string | undefined;
}

export interface AccessControl {
  /** The policy in force. */
  readonly policy: Policy;
  /** Null to let the call run; synchronous unless Basic credentials must go through bcrypt. */
  checkCall(call: AccessCall): AccessVerdict | Promise<AccessVerdict>;
  /**
   * The network and credentials of a call whose operation is known before its
   * body is read (path, SOAPAction or `action`): a refused caller's body is
   * never read (src/wire/asmx-routes.ts). Budgets and the audit of allowed
   * calls wait for checkCall, once the parameters are known; a refusal here
   * is audited without its subject.
   */
  admit(
    operation: OperationModel,
    address: string | null,
    authorization: string | undefined,
  ): DocumentVerdict | Promise<DocumentVerdict>;
  /**
   * The same for a call to `endpoint` whose operation is not known yet:
   * refused only when no operation of the endpoint would let this caller in,
   * as IIS refuses a directory before ASP.NET reads a byte of the body.
   */
  admitEndpoint(
    endpoint: string,
    address: string | null,
    authorization: string | undefined,
  ): DocumentVerdict | Promise<DocumentVerdict>;
  /** Whether every operation of `endpoint` lets any caller through its network and credentials checks: nothing to decide before the body. */
  endpointOpen(endpoint: string): boolean;
  /** `?wsdl`, `?disco` and help pages: the endpoint's default rule (null endpoint: `/`, the top default), unless `documents: open`. */
  checkDocument(
    endpoint: string | null,
    address: string | null,
    authorization: string | undefined,
  ): DocumentVerdict | Promise<DocumentVerdict>;
  /** Reads the policy file again; a bad file is logged and the policy in force kept. True when the new one is in force. */
  reload(): boolean;
  /** Ends the bcrypt threads (the shutdown sequence). */
  close(): Promise<void>;
}

/** What the policy consults; each optional, and wired by the service (src/service.ts). */
export interface AccessDependencies {
  readonly budgets?: CallBudgets;
  readonly enumeration?: EnumerationGuard;
  readonly audit?: AuditTrail;
}

export interface AccessControlOptions extends AccessDependencies {
  /** ACCESS_POLICY. */
  readonly policyFile: string;
  readonly logger: Logger;
  readonly now?: () => number;
  /** Told of each call refused for its network or its credentials (the budgets report their own refusals): the metrics. */
  readonly onRefused?: (reason: 'network' | 'auth') => void;
  /** Where bcrypt runs (BCRYPT_THREADS); default: a pool of createBcryptPool's defaults, started on the first check. */
  readonly bcrypt?: BcryptPool;
  /** The failed-login throttle's limits (login-throttle.ts defaults). */
  readonly loginThrottle?: LoginThrottleOptions;
}

// Operation wire names are unique across the contract's endpoints.
const ENDPOINT_OF = new Map(ENDPOINTS.flatMap((e) => e.operations.map((op) => [op.wireName, e.name] as const)));

interface InForce {
  readonly policy: Policy;
  readonly verify: BasicVerifier;
}

/** Throws PolicyError when the file is missing or invalid: the service must not start open by mistake. */
export function createAccessControl(options: AccessControlOptions): AccessControl {
  const { logger, budgets, enumeration, audit } = options;
  const now = options.now ?? Date.now;
  // Shared by every policy loaded: a reload forgets remembered headers, not failed logins.
  const pool = options.bcrypt ?? createBcryptPool();
  const throttle: LoginThrottle = createLoginThrottle(options.loginThrottle);

  const load = (file: string): InForce => {
    const policy = loadPolicyFile(file);
    return { policy, verify: createBasicVerifier(policy.users, { pool, throttle, now }) };
  };
  let inForce: InForce = load(options.policyFile);
  warnUnenforceable(inForce.policy);

  function warnUnenforceable(policy: Policy): void {
    const rules = ENDPOINTS.flatMap((e) =>
      e.operations.map((op) => policy.operationRule(e.name, op.wireName) as ResolvedRule),
    );
    if (budgets === undefined && rules.some((r) => r.limit !== null))
      logger.warn('the access policy sets limit budgets but this process has no call budgets: limits are not enforced');
    if (enumeration === undefined && rules.some((r) => r.enumeration !== null)) {
      logger.warn(
        'the access policy sets enumeration budgets but this process has no enumeration guard: they are not enforced',
      );
    }
  }

  const record = (
    call: AccessCall,
    endpoint: string,
    user: string | null,
    refusal: AccessVerdict,
    subject: Subject | null,
  ) => {
    const reason = refusal === null ? null : refusalReason(refusal);
    if (reason === 'network' || reason === 'auth') options.onRefused?.(reason);
    if (audit === undefined || subject === null) return;
    audit.record({
      at: new Date(now()),
      address: call.address,
      user,
      endpoint,
      operation: call.operation.wireName,
      subjectKind: subject.kind,
      subject: subject.value,
      outcome: refusal === null ? 'allowed' : 'refused',
      reason,
    });
  };

  /**
   * The `limit` budget's check before bcrypt runs, for a caller without
   * accepted credentials (counted by its address): the seconds to wait once
   * its failed logins spent it.
   */
  const budgetSpent =
    (
      endpoint: string,
      operation: string,
      rule: ResolvedRule,
      address: string | null,
    ): (() => number | null) | undefined =>
    () => {
      if (rule.limit === null || budgets === undefined) return null;
      const verdict = budgets.spent(`${endpoint}.asmx/${operation}`, callerKey(address), rule.limit, now());
      return verdict.ok ? null : verdict.retryAfterSeconds;
    };

  /** The refusal of credentials that were not accepted; a failed login spends the caller's `limit` budget. */
  const refuseLogin = (
    endpoint: string,
    operation: string,
    rule: ResolvedRule,
    address: string | null,
    outcome: BasicOutcome,
    realm: string,
  ) => {
    if (
      outcome.user === null &&
      (outcome.why === 'wrong' || outcome.why === 'malformed') &&
      rule.limit !== null &&
      budgets !== undefined
    ) {
      budgets.take(`${endpoint}.asmx/${operation}`, callerKey(address), rule.limit, now());
    }
    return unauthorized(realm, outcome, operation, rule.limit);
  };

  /** The budgets, once the network and the credentials are through. */
  const afterAuth = (
    call: AccessCall,
    endpoint: string,
    rule: ResolvedRule,
    outcome: BasicOutcome | null,
    subject: Subject | null,
    realm: string,
  ): AccessVerdict => {
    const op = call.operation.wireName;
    const user = outcome?.user ?? null;
    if (rule.auth === 'basic' && outcome !== null && !admitsUser(rule, user)) {
      const refusal = refuseLogin(endpoint, op, rule, call.address, outcome, realm);
      record(call, endpoint, null, refusal, subject);
      return refusal;
    }
    const caller = user ?? callerKey(call.address);
    const at = now();
    let refusal: AccessVerdict = null;
    if (rule.limit !== null && budgets !== undefined) {
      const verdict = budgets.take(`${endpoint}.asmx/${op}`, caller, rule.limit, at);
      if (!verdict.ok)
        refusal = throttled(
          'limit',
          `Too many calls of ${op}: at most ${describeRate(rule.limit)}.`,
          verdict.retryAfterSeconds,
        );
    }
    if (
      refusal === null &&
      rule.enumeration !== null &&
      enumeration !== undefined &&
      subject !== null &&
      subject.value !== null &&
      subject.enumerated &&
      subject.value !== ''
    ) {
      const verdict = enumeration.note(`${endpoint}.asmx/${op}`, caller, subject.value, rule.enumeration, at);
      // The guard logs the walker once per window (enumeration-guard.ts).
      if (!verdict.ok)
        refusal = throttled(
          'enumeration',
          `Too many different ${subject.kind}s read: at most ${describeRate(rule.enumeration)}.`,
          verdict.retryAfterSeconds,
        );
    }
    record(call, endpoint, user, refusal, subject);
    return refusal;
  };

  return {
    get policy() {
      return inForce.policy;
    },

    checkCall(call) {
      const { policy, verify } = inForce;
      const endpoint = ENDPOINT_OF.get(call.operation.wireName) ?? '';
      const subject = subjectOf(call);
      const rule = policy.operationRule(endpoint, call.operation.wireName);
      if (rule === undefined) return null;
      if (!rule.allows(call.address)) {
        const refusal = forbidden(`Forbidden: ${call.operation.wireName} may not be called from this address.`);
        record(call, endpoint, null, refusal, subject);
        return refusal;
      }
      if (rule.auth === 'none') return afterAuth(call, endpoint, rule, null, subject, policy.realm);
      const outcome = verify(
        call.authorization,
        call.address,
        budgetSpent(endpoint, call.operation.wireName, rule, call.address),
      );
      if (outcome instanceof Promise)
        return outcome.then((o) => afterAuth(call, endpoint, rule, o, subject, policy.realm));
      return afterAuth(call, endpoint, rule, outcome, subject, policy.realm);
    },

    admit(operation, address, authorization) {
      const { policy, verify } = inForce;
      const endpoint = ENDPOINT_OF.get(operation.wireName) ?? '';
      const rule = policy.operationRule(endpoint, operation.wireName);
      if (rule === undefined) return null;
      const call: AccessCall = { operation, values: [], address, authorization };
      const refuse = <R extends DocumentVerdict>(refusal: R): R => {
        record(call, endpoint, null, refusal, subjectOf(call));
        return refusal;
      };
      if (!rule.allows(address))
        return refuse(forbidden(`Forbidden: ${operation.wireName} may not be called from this address.`));
      if (rule.auth === 'none') return null;
      const decide = (outcome: BasicOutcome): DocumentVerdict =>
        admitsUser(rule, outcome.user)
          ? null
          : refuse(refuseLogin(endpoint, operation.wireName, rule, address, outcome, policy.realm));
      const outcome = verify(authorization, address, budgetSpent(endpoint, operation.wireName, rule, address));
      return outcome instanceof Promise ? outcome.then(decide) : decide(outcome);
    },

    admitEndpoint(endpoint, address, authorization) {
      const { policy, verify } = inForce;
      const rules = operationRulesOf(policy, endpoint);
      const reachable = rules.filter((rule) => rule.allows(address));
      if (reachable.length === 0) {
        options.onRefused?.('network');
        return forbidden(`Forbidden: ${endpointName(endpoint)}.asmx may not be called from this address.`);
      }
      if (reachable.some((rule) => rule.auth === 'none')) return null;
      const decide = (outcome: BasicOutcome): DocumentVerdict => {
        if (reachable.some((rule) => admitsUser(rule, outcome.user))) return null;
        options.onRefused?.('auth');
        return unauthorized(policy.realm, outcome);
      };
      const outcome = verify(authorization, address);
      return outcome instanceof Promise ? outcome.then(decide) : decide(outcome);
    },

    endpointOpen(endpoint) {
      return operationRulesOf(inForce.policy, endpoint).every((rule) => rule.allow === null && rule.auth === 'none');
    },

    checkDocument(endpoint, address, authorization) {
      const { policy, verify } = inForce;
      if (policy.documents === 'open') return null;
      const rule = endpoint === null ? policy.serviceRule : policy.endpointRule(endpoint);
      if (rule === undefined) return null;
      if (!rule.allows(address))
        return forbidden('Forbidden: this service description may not be read from this address.');
      if (rule.auth === 'none') return null;
      const decide = (outcome: BasicOutcome): DocumentVerdict =>
        admitsUser(rule, outcome.user) ? null : unauthorized(policy.realm, outcome);
      const outcome = verify(authorization, address);
      return outcome instanceof Promise ? outcome.then(decide) : decide(outcome);
    },

    reload() {
      try {
        inForce = load(options.policyFile);
      } catch (err) {
        if (!(err instanceof PolicyError)) throw err;
        logger.error(
          { problems: err.message },
          'the access policy was not reloaded: the file is invalid; the previous policy stays in force',
        );
        return false;
      }
      warnUnenforceable(inForce.policy);
      logger.info(
        { file: options.policyFile, users: inForce.policy.users.size, ...inForce.policy.exposure },
        'access policy reloaded',
      );
      return true;
    },

    close() {
      return pool.close();
    },
  };
}

function admitsUser(rule: ResolvedRule, user: string | null): boolean {
  return user !== null && (rule.users === null || rule.users.has(user));
}

function operationRulesOf(policy: Policy, endpoint: string): ResolvedRule[] {
  const model = ENDPOINTS.find((e) => e.name.toLowerCase() === endpoint.toLowerCase());
  return (model?.operations ?? [])
    .map((op) => policy.operationRule(model?.name ?? endpoint, op.wireName))
    .filter((r): r is ResolvedRule => r !== undefined);
}

function endpointName(endpoint: string): string {
  return ENDPOINTS.find((e) => e.name.toLowerCase() === endpoint.toLowerCase())?.name ?? endpoint;
}

interface Subject {
  readonly kind: AuditSubjectKind;
  readonly value: string | null;
  /** The enumeration budget counts it (walking through ids). */
  readonly enumerated: boolean;
}

function subjectOf(call: AccessCall): Subject | null {
  const rule = subjectRule(call.operation.wireName);
  if (rule === undefined) return null;
  const index = call.operation.parameters.findIndex((p) => p.wireName === rule.parameter);
  return { kind: rule.kind, value: index < 0 ? null : (call.values[index] ?? null), enumerated: rule.enumerated };
}

function forbidden(message: string): Extract<AccessRefusal, { kind: 'forbidden' }> {
  return { kind: 'forbidden', message };
}

/**
 * The 401 for credentials not accepted, saying why (docs/security.md#what-a-caller-gets):
 * never whether a user name exists.
 */
function unauthorized(
  realm: string,
  outcome: BasicOutcome,
  operation?: string,
  limit?: RateRule | null,
): Extract<AccessRefusal, { kind: 'unauthorized' }> {
  if (outcome.user !== null)
    return {
      kind: 'unauthorized',
      realm,
      message: `Unauthorized: this user may not call ${operation ?? 'this endpoint'}.`,
    };
  const refusal: BasicRefusal = outcome;
  switch (refusal.why) {
    case 'missing':
      return {
        kind: 'unauthorized',
        realm,
        message: 'Unauthorized: this operation needs a user name and password (HTTP Basic authentication).',
      };
    case 'malformed':
      return {
        kind: 'unauthorized',
        realm,
        message:
          'Unauthorized: the Authorization header is not HTTP Basic credentials (Basic, then base64 of user:password).',
      };
    case 'wrong':
      return { kind: 'unauthorized', realm, message: 'Unauthorized: wrong user name or password.' };
    case 'throttled':
      return retry(realm, 'Unauthorized: too many failed logins.', refusal.retryAfterSeconds);
    case 'busy':
      return retry(realm, 'Unauthorized: too many logins are being checked at the moment.', refusal.retryAfterSeconds);
    case 'limit':
      return {
        ...retry(
          realm,
          `Unauthorized: too many failed logins for ${operation ?? 'this operation'}${limit ? `: at most ${describeRate(limit)}` : ''}.`,
          refusal.retryAfterSeconds,
        ),
        reason: 'limit',
      };
  }
}

/** A refusal's message and the whole seconds, at least one, sent as `Retry-After`. */
function tryAgain(message: string, retryAfterSeconds: number): { message: string; retryAfterSeconds: number } {
  const seconds = Math.max(1, Math.ceil(retryAfterSeconds));
  return {
    message: `${message} Try again in ${seconds} ${seconds === 1 ? 'second' : 'seconds'}.`,
    retryAfterSeconds: seconds,
  };
}

function retry(
  realm: string,
  message: string,
  retryAfterSeconds: number,
): Extract<AccessRefusal, { kind: 'unauthorized' }> {
  return { kind: 'unauthorized', realm, ...tryAgain(message, retryAfterSeconds) };
}

function throttled(reason: 'limit' | 'enumeration', message: string, retryAfterSeconds: number): AccessRefusal {
  return { kind: 'throttled', reason, ...tryAgain(message, retryAfterSeconds) };
}

/** Why a call was refused, as the audit trail, the metrics and the access log name it. */
export function refusalReason(refusal: AccessRefusal): RefusalReason {
  return refusal.kind === 'forbidden'
    ? 'network'
    : refusal.kind === 'unauthorized'
      ? (refusal.reason ?? 'auth')
      : refusal.reason;
}

function describeRate(rule: RateRule): string {
  for (const [unit, size] of [
    ['day', 86_400_000],
    ['hour', 3_600_000],
    ['minute', 60_000],
    ['second', 1000],
  ] as const) {
    if (rule.windowMs % size === 0)
      return `${rule.max} per ${rule.windowMs === size ? unit : `${rule.windowMs / size} ${unit}s`}`;
  }
  return `${rule.max} per ${rule.windowMs} ms`;
}
