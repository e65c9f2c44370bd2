import { describe, expect, it } from 'vitest';
import { isUuid } from '../src/http/schemas.ts';
import { isHexToken } from '../src/http/schemas.ts';
import { hashToken, keyedHash, newId, newToken, safeEqual, sha256, tokenMatches } from '../src/tokens.ts';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('tokens', () => {
  it('makes 64 lowercase hex characters from 32 random bytes, never the same twice', () => {
    const tokens = Array.from({ length: 200 }, () => newToken());
    for (const token of tokens) {
      expect(token).toMatch(/^[0-9a-f]{64}$/);
      expect(isHexToken(token)).toBe(true);
    }
    expect(new Set(tokens).size).toBe(tokens.length);
  });

  it('accepts a hex token in either case and nothing else', () => {
    const token = newToken();
    expect(isHexToken(token.toUpperCase())).toBe(true);
    expect(isHexToken(`${token.slice(0, 32)}${token.slice(32).toUpperCase()}`)).toBe(true);
    for (const bad of ['', token.slice(1), `${token}0`, `${token.slice(1)}g`, ` ${token.slice(1)}`, `${token.slice(1)}\n`, 'é'.repeat(64)]) {
      expect(isHexToken(bad), JSON.stringify(bad)).toBe(false);
    }
  });

  it('hashes a token as SHA-256 of its lowercase form, so either case finds the same stored hash', () => {
    const token = 'ABCDEF0123456789'.repeat(4);
    expect(hashToken(token)).toBe(sha256(token.toLowerCase()));
    expect(hashToken(token)).toBe(hashToken(token.toLowerCase()));
    expect(hashToken(token)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashToken(token)).not.toBe(hashToken('abcdef0123456788'.repeat(4)));
  });

  it('matches a token against its stored hash in either case, and refuses any other token', () => {
    const token = newToken();
    const stored = hashToken(token);
    expect(tokenMatches(token, stored)).toBe(true);
    expect(tokenMatches(token.toUpperCase(), stored)).toBe(true);
    expect(tokenMatches(newToken(), stored)).toBe(false);
    // The hash itself is not the credential.
    expect(tokenMatches(stored, stored)).toBe(false);
    expect(tokenMatches(token, stored.toUpperCase())).toBe(false);
  });

  it('compares strings as timingSafeEqual does, answering false for other lengths instead of throwing', () => {
    expect(safeEqual('same-secret', 'same-secret')).toBe(true);
    expect(safeEqual('', '')).toBe(true);
    expect(safeEqual('same-secret', 'same-secreT')).toBe(false);
    expect(safeEqual('Same-secret', 'same-secret')).toBe(false);
    expect(safeEqual('short', 'longer-secret')).toBe(false);
    expect(safeEqual('longer-secret', '')).toBe(false);
    // Compared as UTF-8 bytes: one two-byte character is not two one-byte ones.
    expect(safeEqual('é', 'ab')).toBe(false);
    expect(safeEqual('é', 'é')).toBe(true);
  });

  it('computes SHA-256 and HMAC-SHA-256 as lowercase hex (published test vectors)', () => {
    expect(sha256('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    // RFC 4231, test case 2.
    expect(keyedHash('Jefe', 'what do ya want for nothing?')).toBe('5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843');
    expect(keyedHash('another key', 'what do ya want for nothing?')).not.toBe(keyedHash('Jefe', 'what do ya want for nothing?'));
  });
});

describe('ids', () => {
  it('are lowercase UUIDv7s that the id schema accepts, stamped with the current time', () => {
    const before = Date.now();
    const id = newId();
    const after = Date.now();
    expect(id).toMatch(UUID_V7);
    expect(isUuid(id)).toBe(true);
    const stamped = parseInt(id.replace(/-/g, '').slice(0, 12), 16);
    expect(stamped).toBeGreaterThanOrEqual(before);
    expect(stamped).toBeLessThanOrEqual(after);
  });

  it('sort in the order they were made, and are unique', () => {
    const ids = Array.from({ length: 1_000 }, () => newId());
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
