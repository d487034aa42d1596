// The one table of what a provider's answer means and who must act
// (src/shared/failure-explanations.ts, docs/console.md#explanations), read
// the way the worker stores its answers (`<code>: <message>`).
import {
  EXPLANATIONS,
  explainFailure,
  explainRefusal,
  explanationByKey,
  storedErrorCode,
} from '../../src/shared/failure-explanations';

const cases: readonly [channel: 'push' | 'sms', error: string, key: string, who: string, permanent: boolean][] = [
  // FCM's error codes.
  ['push', 'UNREGISTERED: Requested entity was not found.', 'push-token-gone', 'parents', true],
  [
    'push',
    'INVALID_ARGUMENT: The registration token is not a valid FCM registration token',
    'push-invalid',
    'us',
    true,
  ],
  ['push', 'SENDER_ID_MISMATCH: SenderId mismatch', 'push-sender-mismatch', 'us', true],
  ['push', 'QUOTA_EXCEEDED: Quota exceeded', 'rate-limited', 'nobody', false],
  ['push', 'UNAVAILABLE: The service is currently unavailable.', 'provider-unavailable', 'provider', false],
  ['push', 'INTERNAL: Internal error', 'provider-unavailable', 'provider', false],
  ['push', 'THIRD_PARTY_AUTH_ERROR: APNs certificate', 'push-apns-auth', 'us', true],
  ['push', 'no_token: The device has no push token.', 'push-no-token', 'parents', true],
  // The push webhook's statuses: a 410 is a token gone, not "the provider refused".
  ['push', 'http_400: HTTP 400', 'push-refused', 'us', true],
  ['push', 'http_401: HTTP 401', 'credentials', 'us', true],
  ['push', 'http_403: HTTP 403', 'credentials', 'us', true],
  ['push', 'http_404: HTTP 404', 'provider-not-found', 'us', true],
  [
    'push',
    'http_410: The gateway says the push token is no longer registered (HTTP 410).',
    'push-token-gone',
    'parents',
    true,
  ],
  ['push', 'http_429: HTTP 429', 'rate-limited', 'nobody', false],
  [
    'push',
    'fcm_project_unknown: The school names the FCM project "brand-c", which is not configured (FCM_PROJECTS).',
    'push-fcm-project-unknown',
    'us',
    true,
  ],
  ['push', 'http_502: HTTP 502', 'provider-unavailable', 'provider', false],
  // The SMS gateway's statuses: never "the parents must open the app".
  ['sms', 'http_400: HTTP 400: bad number', 'sms-refused', 'parents', true],
  ['sms', 'http_410: HTTP 410', 'sms-number-gone', 'parents', true],
  ['sms', 'http_503: HTTP 503', 'provider-unavailable', 'provider', false],
  // Twilio's error numbers.
  ['sms', "twilio_21211: The 'To' number is not a valid phone number.", 'sms-invalid-number', 'parents', true],
  ['sms', 'twilio_21614: not a mobile number', 'sms-not-mobile', 'parents', true],
  ['sms', 'twilio_21610: Attempt to send to unsubscribed recipient', 'sms-unsubscribed', 'parents', true],
  ['sms', 'twilio_30003: Unreachable destination handset', 'sms-unreachable', 'parents', false],
  ['sms', 'twilio_30005: Unknown destination handset', 'sms-invalid-number', 'parents', true],
  ['sms', 'twilio_30006: Landline or unreachable carrier', 'sms-not-mobile', 'parents', true],
  ['sms', 'twilio_30007: Message filtered', 'sms-filtered', 'us', true],
  // Timeouts, and how the outbox finished a message.
  ['sms', 'timeout: No answer from sms.example within 10000 ms.', 'no-answer', 'provider', false],
  [
    'push',
    'gave up after 5 attempts; last: timeout: No answer from fcm within 10000 ms.',
    'no-answer',
    'provider',
    false,
  ],
  ['sms', 'timeout: No answer (it may have been accepted; not sent again)', 'uncertain', 'parents', false],
  ['sms', 'http_503: HTTP 503; a retry would come after the code expires', 'sms-expired', 'parents', true],
  ['push', 'SOMETHING_NEW: a code nobody has seen', 'other', 'us', false],
];

describe('the explanations of failures', () => {
  it.each(cases)('%s %s: %s, %s acts', (channel, error, key, who, permanent) => {
    const found = explainFailure(channel, error);
    expect([found?.key, found?.who, found?.permanent]).toEqual([key, who, permanent]);
  });

  it('prefers the attempt answer code when there is one, and explains nothing without a failure', () => {
    expect(explainFailure('push', 'HTTP 503 from FCM', 'UNREGISTERED')?.key).toBe('push-token-gone');
    expect(explainFailure('push', null)).toBeNull();
    expect(storedErrorCode('gave up after 3 attempts; last: http_503: HTTP 503')).toBe('http_503');
    expect(storedErrorCode('no code here')).toBeNull();
    // A code alone is its own code.
    expect(storedErrorCode('UNREGISTERED')).toBe('UNREGISTERED');
    expect(explainFailure('push', 'UNREGISTERED')?.key).toBe('push-token-gone');
  });

  it('says what happened and what to do in both languages, each key once', () => {
    const keys = EXPLANATIONS.map((e) => e.key);
    expect(new Set(keys).size).toBe(keys.length);
    for (const e of EXPLANATIONS) {
      expect(explanationByKey(e.key)).toBe(e);
      for (const text of [e.en.what, e.en.todo, e.ar.what, e.ar.todo]) expect(text.length).toBeGreaterThan(10);
      expect(e.ar.what).toMatch(/[\u0600-\u06ff]/);
    }
    expect(explanationByKey('nope')).toBeNull();
  });

  it('explains the refusals of calls, the unknown ones as such', () => {
    expect([explainRefusal('no_token').who, explainRefusal('no_token').key]).toEqual(['parents', 'refused-no-token']);
    expect(explainRefusal('student_not_in_school').who).toBe('school');
    expect(explainRefusal('auth_code_limit_global').who).toBe('us');
    expect(explainRefusal('toString').key).toBe('other');
  });
});
