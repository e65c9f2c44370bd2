import { Type } from '@sinclair/typebox';

/**
 * A referral id as sent (COMPAT §2): trimmed by the app, then either empty (none) or a letter or
 * digit followed by up to 63 of letters, digits, ".", "_" and "-", in either case; stored lowercased.
 */
export const REFERRAL_ID_PATTERN = '^([a-zA-Z0-9][a-zA-Z0-9._-]{0,63})?$';

export function referralIdSchema(description: string) {
  return Type.String({ maxLength: 64, pattern: REFERRAL_ID_PATTERN, description });
}

/** The stored form: lowercase, or null for none (absent or empty). */
export function normalReferralId(value: string | undefined): string | null {
  return value === undefined || value === '' ? null : value.toLowerCase();
}
