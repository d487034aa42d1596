// The store folder's public face: open a store, feed it data, and the types
// the rest of the service codes against. Everything else here is private.
export { DEFAULT_GROUP_COMMIT_MS, openStore, type OpenStoreOptions } from './open-store';
export { GroupCommit } from './group-commit';
export type { OutboxSubscription } from './outbox-notify';
export type { SqlStore } from './sql-store';
export { StoreError, type StoreErrorKind } from './errors';
export { InvalidDataSetError } from './data-set-values';
export { checkRecord, type RecordCheck } from './check-record';
export { DEMO_DATA, loadDemoData } from './demo-data';
export type {
  DataSet,
  DataSetAbsence,
  DataSetCollection,
  DataSetCounts,
  DataSetDevice,
  DataSetNote,
  DataSetSchool,
  DataSetStudent,
  WriteDataSetOptions,
} from './data-set';
export type { AuthCodeMessageRow, OutboxFilter, PushNotificationRow } from './outbox';
export type { OutboxChannel, OutboxChannelStats, RequeueResult } from './outbox-admin';
export type { ClaimedAuthCodeMessage, ClaimedMessage, ClaimedPushNotification, DeliveryCompletion, DeliveryCompletionEntry } from './outbox-claims';
export type { AuditOutcome, AuditPage, AuditQuery, AuditRow, NewAuditRow } from './access-audit';
export { counterTotalKey, type CounterDelta, type CounterMerge, type CounterWindow } from './access-counters';
export type { AuthCodeAdmission, AuthCodeLimit, AuthCodeLimitScope } from './auth-code-admission';
export type { DevicePlatform, OutboxStatus } from './database';
export type { ImportCounts } from './import-data-set';
export type { MigrationStatus } from './migration-status';
export type { OutboxMessage, OutboxPage, OutboxQuery } from './outbox-listing';
export type { RecordChangeResult, RecordDecision } from './record-change';
export { COLLECTION_OF, type Collection } from './collections';
export { COLLECTIONS, recordKey, type DeleteResult, type RecordFilter, type RecordOf, type RecordPage } from './records';
export type { AbsenceRecord, NewAuthCodeMessage, NewPushNotification, NoteRecord, NoteState, Store, StudentPlacement, StudentSummary } from './types';
