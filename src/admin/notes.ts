/** A run of 32+ hex characters: every token this service issues is 64 hex characters. */
const HEX_RUN = /[0-9a-fA-F]{32,}/;
/** "Bearer" followed by something token-shaped (16+ characters), as pasted from an Authorization header. */
const BEARER_CREDENTIAL = /\bbearer\s+[A-Za-z0-9._~+/=:-]{16,}/i;

/** True when a review note looks like it holds a credential (CONTRACT §4.1: notes never hold tokens). */
export function noteLooksLikeSecret(note: string): boolean {
  return HEX_RUN.test(note) || BEARER_CREDENTIAL.test(note);
}
