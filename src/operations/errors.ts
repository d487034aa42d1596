import { StoreError } from '../store';

/** The store's failure, as an operation passes it on (our failure, answered as in docs/design.md#operation-failures). */
export { StoreError };

/**
 * A request the caller got wrong (bad phone number, unknown student, ...).
 * The bindings answer it as a `soap:Client`/`soap:Sender` fault, or a
 * plain-text 500 over GET/POST, with this message as it stands.
 */
export class ClientError extends Error {
  override readonly name = 'ClientError';
  readonly code: string;
  /** When the caller may try again (a limit's refusal): sent as `Retry-After`. */
  readonly retryAfterSeconds: number | undefined;

  constructor(code: string, message: string, options: { readonly retryAfterSeconds?: number } = {}) {
    super(message);
    this.code = code;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}

export type Failure = {
  readonly kind: 'client' | 'server';
  readonly message: string;
  readonly retryAfterSeconds?: number;
};

export class OperationTimeoutError extends Error {
  override readonly name = 'OperationTimeoutError';
}

/**
 * What a caller is told when an operation fails: its own mistakes as they
 * are, our failures in words that are safe to show (never a stack or SQL).
 * `expected` is false for failures a person should look into in the logs.
 */
export function describeFailure(err: unknown): Failure & { readonly expected: boolean } {
  if (err instanceof ClientError)
    return { kind: 'client', message: err.message, retryAfterSeconds: err.retryAfterSeconds, expected: true };
  if (err instanceof StoreError || err instanceof OperationTimeoutError)
    return { kind: 'server', message: err.message, expected: false };
  return { kind: 'server', message: 'An unexpected error occurred; it has been logged.', expected: false };
}
