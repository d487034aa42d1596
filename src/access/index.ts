export {
  createAccessControl,
  type AccessCall,
  type AccessControl,
  type AccessControlOptions,
  type AccessDependencies,
  type AccessRefusal,
  type AccessVerdict,
} from './access-control';
export { DEFAULT_REALM, PolicyError, compilePolicy, loadPolicyFile, parsePolicy, parseRate, type Policy, type ResolvedRule } from './policy';
export type { AuditEntry, AuditSubjectKind, AuditTrail, BudgetVerdict, CallBudgets, EnumerationGuard, RateRule } from './contracts';
