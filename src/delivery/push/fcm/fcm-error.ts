// FCM HTTP v1 error answers, classified as Firebase's ErrorCode reference
// asks (docs/delivery.md#retries). The FCM-specific
// code sits in error.details[] (type FcmError); error.status is the generic
// Google status.
import { failureFromStatus, jsonBody, type HttpAnswer } from '../../http/http-call';
import { parseRetryAfter } from '../../http/retry-after';
import { failure, type SendFailure } from '../../provider';

interface GoogleErrorBody {
  error?: {
    message?: unknown;
    status?: unknown;
    details?: Array<{ '@type'?: unknown; errorCode?: unknown; fieldViolations?: Array<{ field?: unknown }> }>;
  };
}

const RETRY = new Set(['UNAVAILABLE', 'INTERNAL', 'UNSPECIFIED_ERROR']);
const SLOW_DOWN = new Set(['QUOTA_EXCEEDED', 'RESOURCE_EXHAUSTED']);
// Token gone: remove it. NOT_FOUND without an FCM code is how FCM has long
// said the same thing (firebase-admin maps it alike).
const TOKEN_GONE = new Set(['UNREGISTERED', 'NOT_FOUND']);

export function fcmFailure(answer: HttpAnswer): SendFailure {
  const error = (jsonBody(answer) as GoogleErrorBody | undefined)?.error;
  if (error === undefined) return failureFromStatus(answer);
  const details = Array.isArray(error.details) ? error.details : [];
  const fcmCode = details.find((d) => typeof d['@type'] === 'string' && d['@type'].endsWith('FcmError'))?.errorCode;
  const code =
    typeof fcmCode === 'string' ? fcmCode : typeof error.status === 'string' ? error.status : `http_${answer.status}`;
  const message = `${typeof error.message === 'string' ? error.message : 'FCM error'} (HTTP ${answer.status})`;
  const retryAfterMs = parseRetryAfter(answer.headers['retry-after'] ?? null);

  if (TOKEN_GONE.has(code)) return failure(code, message, { tokenInvalid: true });
  if (code === 'INVALID_ARGUMENT')
    return failure(code, message, { tokenInvalid: isAboutToken(error.message, details) });
  if (SLOW_DOWN.has(code)) return failure(code, message, { retryable: true, rateLimited: true, retryAfterMs });
  if (RETRY.has(code)) return failure(code, message, { retryable: true, retryAfterMs });
  // Our access token expired or was revoked: not the message's fault (the provider mints a new one).
  if (code === 'UNAUTHENTICATED') return failure(code, message, { retryable: true, retryAfterMs });
  // SENDER_ID_MISMATCH, THIRD_PARTY_AUTH_ERROR, PERMISSION_DENIED and any other 4xx fail the same way every time.
  const byStatus = failureFromStatus(answer, code);
  return { ...byStatus, message };
}

// INVALID_ARGUMENT covers a bad token and a bad payload alike; only the
// former may cost the device its token.
function isAboutToken(
  message: unknown,
  details: NonNullable<NonNullable<GoogleErrorBody['error']>['details']>,
): boolean {
  const fields = details.flatMap((d) => (Array.isArray(d.fieldViolations) ? d.fieldViolations : []));
  if (fields.some((f) => f.field === 'message.token')) return true;
  return typeof message === 'string' && /registration token/i.test(message);
}
