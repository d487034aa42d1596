export {
  createAccessControl,
  type AccessCall,
  type AccessControl,
  type AccessControlOptions,
  type AccessDependencies,
  type AccessRefusal,
  type AccessVerdict,
  type DocumentVerdict,
  refusalReason,
} from './access-control';
export {
  DEFAULT_REALM,
  PolicyError,
  USER_NAME,
  compilePolicy,
  loadPolicyFile,
  parsePolicy,
  parseRate,
  type Policy,
  type ResolvedRule,
} from './policy';
export type {
  AuditEntry,
  AuditSubjectKind,
  AuditTrail,
  BudgetVerdict,
  CallBudgets,
  EnumerationGuard,
  RateRule,
} from './contracts';
