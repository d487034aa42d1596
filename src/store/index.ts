// The store folder's public face: open a store, feed it data, and the types
// the rest of the service codes against. Everything else here is private.
export { DEFAULT_GROUP_COMMIT_MS, openStore, type OpenStoreOptions } from './open-store';
export { GroupCommit } from './outbox/group-commit';
export type { OutboxSubscription } from './outbox/outbox-notify';
export type {
  AccessStore,
  AdminStore,
  ConsoleStore,
  DataSetStore,
  DemoDataStore,
  ImportStore,
  OpenedStore,
  Outbox,
  StoreLifecycle,
} from './roles';
export { StoreError, type StoreErrorKind } from './errors';
export {
  backupSqliteStore,
  SqliteBackupError,
  sqliteStoreFile,
  type SqliteBackupOptions,
  type SqliteBackupResult,
} from './connection/sqlite-backup';
export { InvalidDataSetError } from './data-set/data-set-values';
export { EVENTS_URL_FIELD } from './data-set/event-subscriptions';
export { checkRecord, type RecordCheck, type RecordReference } from './records/check-record';
export { DEMO_DATA, loadDemoData } from './data-set/demo-data';
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
} from './data-set/data-set';
export type { AuthCodeMessageRow, OutboxFilter, PushNotificationRow } from './outbox/outbox';
export type { OutboxChannel, OutboxChannelStats, RequeueResult } from './outbox/outbox-admin';
export type {
  ClaimedAuthCodeMessage,
  ClaimedMessage,
  ClaimedPushNotification,
  DeliveryCompletion,
  DeliveryCompletionEntry,
} from './outbox/outbox-claims';
export type { AuthCodeClaim } from './outbox/outbox-role';
export type {
  ClaimedEvent,
  EventCompletion,
  EventCompletionEntry,
  EventHealthRule,
  EventSubscriptionView,
} from './outbox/events';
export type {
  AuditCursor,
  AuditOutcome,
  AuditPage,
  AuditQuery,
  AuditRow,
  NewAuditRow,
} from './audit-and-counters/access-audit';
export {
  counterTotalKey,
  type CounterDelta,
  type CounterMerge,
  type CounterWindow,
} from './audit-and-counters/access-counters';
export type { AuthCodeAdmission, AuthCodeLimit, AuthCodeLimitScope } from './outbox/auth-code-admission';
export type { DevicePlatform, EventSubscriptionState, OutboxStatus } from './database';
export type { ImportCounts } from './data-set/import-data-set';
export type { MigrationStatus } from './migrations/migration-status';
export type { OutboxMessage, OutboxPage, OutboxQuery } from './outbox/outbox-listing';
export type { RecordChangeResult, RecordDecision } from './records/record-change';
export { COLLECTION_OF, LINKS, type Collection, type CollectionLink } from './collections';
export {
  COLLECTIONS,
  recordKey,
  type DeleteResult,
  type RecordFilter,
  type RecordOf,
  type RecordPage,
} from './records/records';
export type {
  AbsenceRecord,
  NewAuthCodeMessage,
  NewRefusedCall,
  NewPushNotification,
  NoteRecord,
  NoteState,
  OutboxQueue,
  Records,
  Store,
  StudentPlacement,
  StudentSummary,
} from './types';
export { CONSOLE_ROLES } from './operator-accounts';
export { PHONE_SUFFIX_DIGITS, phoneDigits } from './message-history/message-list';
export type {
  AccountWrite,
  ActivityBucket,
  ActivityWidth,
  ConsoleAccount,
  ConsoleAccountSecret,
  ConsoleRole,
  ConsoleSession,
  DeliveryAttemptRow,
  ErrorCount,
  FunnelRow,
  MessageChannel,
  MessageCursor,
  MessageListFilter,
  MessageListItem,
  MessageListPage,
  MessageListStatus,
  NewConsoleSession,
  RefusedCall,
  DeadCursor,
  StudentHit,
  StudentHits,
  WorkerHeartbeat,
} from './console-role';
export type {
  ApplyStart,
  ClaimedImportJob,
  ConsoleImportJob,
  ConsoleUpload,
  ConsoleUploadWithJobs,
  ImportJobKind,
  ImportJobState,
  ImportProgress,
  NewConsoleUpload,
} from './import-jobs';
