/** What an operation may know about the call, whatever the binding. */
export interface CallContext {
  /** The caller's address (X-Forwarded-For only behind a trusted proxy). */
  readonly callerAddress: string | null;
  readonly requestId: string;
}
