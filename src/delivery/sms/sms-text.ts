// The text of a login-code SMS, per language; `{code}` is the code.

export const DEFAULT_SMS_TEMPLATES: Readonly<Record<string, string>> = {
  ar: 'رمز التحقق الخاص بك هو {code}. لا تشاركه مع أحد.',
  en: 'Your verification code is {code}. Do not share it with anyone.',
};

export function smsText(template: string, code: string): string {
  return template.replaceAll('{code}', code);
}
