// Policies written to a temporary file, the app behind them, and the four
// bindings called the same way, for the access tests.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import bcrypt from 'bcryptjs';
import pino, { type Logger } from 'pino';
import type { Response } from 'supertest';
import { createAccessControl, type AccessControl, type AccessDependencies, type AuditEntry } from '../../src/access';
import type { AccessObserver, RefusalReason } from '../../src/access/observer';
import type { App } from '../../src/server';
import { startTestService, type TestService } from '../support/service';
import { httpGet, httpPost, soap11, soap12, type Params } from '../support/wire';

export type Binding = 'SOAP 1.1' | 'SOAP 1.2' | 'HTTP GET' | 'HTTP POST';
export const BINDINGS: Binding[] = ['SOAP 1.1', 'SOAP 1.2', 'HTTP GET', 'HTTP POST'];

// Cost 4, the least bcrypt allows: the tests check the logic, not the cost.
export const PASSWORDS = { 'sis-alnoor': 'correct horse battery', 'app-gateway': 'pässwörd: with colon' } as const;
export const HASHES = Object.fromEntries(Object.entries(PASSWORDS).map(([user, pw]) => [user, bcrypt.hashSync(pw, 4)]));

export function basic(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}`;
}

const PERSONAL_READS = {
  NotificationNotes: 'GetStudentSchool',
  PushNotificationMobile: 'GetTokenDevice',
  GetStudentsAbsence: 'GetStudentsAbcenceByID',
  GetStudentsAudit: 'GetStudentsAudtiNote',
  ReadNoteFromApp: 'UpdateNoteState',
} as const;

/**
 * Policy lines (under `endpoints:`) that leave these endpoints' reads of
 * personal data open on purpose, as a policy must say to leave them open
 * (docs/security.md): for tests about the other rules of a policy.
 */
export function OPEN_PERSONAL_READS(endpoints: readonly (keyof typeof PERSONAL_READS)[]): string {
  return endpoints.map((endpoint) => `  ${endpoint}.asmx:\n    ${PERSONAL_READS[endpoint]}: { open: true }\n`).join('');
}

export interface PolicyFixture {
  readonly file: string;
  write(text: string): void;
  cleanup(): void;
}

export function policyFile(text: string, name = 'policy.yaml'): PolicyFixture {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sns-policy-'));
  const file = path.join(dir, name);
  writeFileSync(file, text);
  return {
    file,
    write: (next) => writeFileSync(file, next),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

export function usersYaml(): string {
  return `users:\n${Object.entries(HASHES)
    .map(([user, hash]) => `  ${user}: "${hash}"`)
    .join('\n')}\n`;
}

export interface ServiceWithPolicy {
  readonly service: TestService;
  readonly access: AccessControl;
  readonly policy: PolicyFixture;
  readonly logs: Record<string, unknown>[];
  close(): Promise<void>;
}

/** The app behind a policy; X-Forwarded-For is trusted so that tests can call from any address. */
export async function startWithPolicy(
  policyText: string,
  deps: AccessDependencies | ((logger: Logger) => AccessDependencies) = {},
  extra: { publicBaseUrl?: string; logger?: Logger; now?: () => number } = {},
): Promise<ServiceWithPolicy> {
  const policy = policyFile(policyText);
  const logs: Record<string, unknown>[] = [];
  const logger =
    extra.logger ??
    pino({ level: 'info' }, { write: (line: string) => void logs.push(JSON.parse(line) as Record<string, unknown>) });
  const access = createAccessControl({
    policyFile: policy.file,
    logger,
    now: extra.now,
    ...(typeof deps === 'function' ? deps(logger) : deps),
  });
  const service = await startTestService({ access, trustProxy: true, publicBaseUrl: extra.publicBaseUrl });
  return {
    service,
    access,
    policy,
    logs,
    async close() {
      await service.close();
      await access.close();
      policy.cleanup();
    },
  };
}

export interface CallOptions {
  readonly from?: string;
  readonly authorization?: string;
}

/** Calls an operation over a binding; the one char parameter (show_active) goes as its code in SOAP. */
export function callOp(
  app: App,
  binding: Binding,
  endpoint: string,
  op: string,
  params: Params,
  options: CallOptions = {},
): Promise<Response> {
  const soapParams = Object.fromEntries(
    Object.entries(params).map(([k, v]) => [k, k === 'show_active' ? String(v.charCodeAt(0)) : v]),
  );
  let test;
  switch (binding) {
    case 'SOAP 1.1':
      test = soap11(app, endpoint, op, soapParams);
      break;
    case 'SOAP 1.2':
      test = soap12(app, endpoint, op, soapParams);
      break;
    case 'HTTP GET':
      test = httpGet(app, endpoint, op, params);
      break;
    case 'HTTP POST':
      test = httpPost(app, endpoint, op, params);
      break;
  }
  if (options.from !== undefined) test = test.set('X-Forwarded-For', options.from);
  if (options.authorization !== undefined) test = test.set('Authorization', options.authorization);
  return test;
}

export const isSoap = (binding: Binding): boolean => binding.startsWith('SOAP');

/** An observer that keeps what access control reports (src/access/observer.ts). */
export function countingObserver() {
  const counts = {
    audited: [] as AuditEntry[],
    refused: [] as RefusalReason[],
    dropped: 0,
    writeFailures: 0,
    syncFailures: 0,
    evicted: { budget: 0, enumeration: 0 },
  };
  const observer: AccessObserver = {
    audited: (entry) => void counts.audited.push(entry),
    refused: (reason) => void counts.refused.push(reason),
    auditDropped: (n) => void (counts.dropped += n),
    auditWriteFailed: () => void counts.writeFailures++,
    budgetSyncFailed: () => void counts.syncFailures++,
    evicted: (what, n) => void (counts.evicted[what] += n),
  };
  return { counts, observer };
}
