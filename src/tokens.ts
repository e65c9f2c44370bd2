import { createHmac, hash, randomFillSync, timingSafeEqual } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';

const TOKEN_BYTES = 32;
// CSPRNG bytes drawn 4 KiB at a time: one draw costs about what 32 bytes alone cost (4.5 µs), and
// every conversation creation makes a token. Each byte serves one token and is zeroed once used.
const randomPool = Buffer.alloc(4096);
let poolUsed = randomPool.length;

/** Server-made credentials: 32 CSPRNG bytes as 64 lowercase hex characters (CONTRACT §2). */
export function newToken(): string {
  if (poolUsed + TOKEN_BYTES > randomPool.length) {
    randomFillSync(randomPool);
    poolUsed = 0;
  }
  const token = randomPool.toString('hex', poolUsed, poolUsed + TOKEN_BYTES);
  randomPool.fill(0, poolUsed, poolUsed + TOKEN_BYTES);
  poolUsed += TOKEN_BYTES;
  return token;
}

/** Hex tokens are case-insensitive, so every path hashes the lowercase form. */
export function hashToken(token: string): string {
  return sha256(token.toLowerCase());
}

/** Constant-time equality of two strings (lengths are not secret). */
export function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/** True when `token` hashes to `storedHash`, compared in constant time. */
export function tokenMatches(token: string, storedHash: string): boolean {
  return safeEqual(hashToken(token), storedHash);
}

export function keyedHash(key: string, value: string): string {
  return createHmac('sha256', key).update(value).digest('hex');
}

/** One-shot crypto.hash: about half the cost of createHash().update().digest() for short inputs. */
export function sha256(value: string): string {
  return hash('sha256', value, 'hex');
}

/** Time-ordered UUIDv7, lowercase. */
export function newId(): string {
  return uuidv7();
}
