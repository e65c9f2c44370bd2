import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Services } from '../services.ts';
import { keyedHash, safeEqual, sha256 } from '../tokens.ts';

/**
 * Who may still have an administrator token compared past the failure limit (OWASP's device
 * cookies): a browser holding a device cookie, or a source that authenticated lately. Anyone else
 * past the limit is refused without the comparison, so the failure limit bounds the guesses
 * compared per source while nobody can lock the owner out (README, "Security").
 */
export const DEVICE_COOKIE = 'parley_device';
const DEVICE_LIFETIME_SECONDS = 180 * 86_400;
/** A cookie older than this is issued again on the next success, so an active device never expires. */
const DEVICE_RENEWAL_SECONDS = 30 * 86_400;
const KNOWN_SOURCE_LIFETIME_MS = 30 * 86_400_000;
/** A known source's expiry is pushed back in the store at most this often per instance. */
const KNOWN_SOURCE_REFRESH_MS = 86_400_000;
/** Sources remembered in memory by one instance; past it the memory starts afresh from the store. */
const KNOWN_SOURCE_CACHE_SIZE = 10_000;

interface DeviceState {
  knownSources: Map<string, number>;
}

const states = new WeakMap<Services, DeviceState>();

function stateOf(services: Services): DeviceState {
  let state = states.get(services);
  if (!state) states.set(services, (state = { knownSources: new Map() }));
  return state;
}

/**
 * The cookie holds its issue time and a MAC over it and the administrator token's digest, keyed
 * with RATE_SALT: no secret, no state, valid on every instance that shares both secrets, and void
 * once the token changes.
 */
function deviceMac(services: Services, issuedAt: number): string {
  const { adminToken, rateSalt } = services.config;
  return keyedHash(rateSalt ?? '', `${DEVICE_COOKIE}|${issuedAt}|${sha256(adminToken ?? '')}`);
}

const COOKIE_VALUE = new RegExp(`(?:^|;)\\s*${DEVICE_COOKIE}=(\\d{1,12})\\.([0-9a-f]{64})\\s*(?:;|$)`);

/** The issue time (seconds) of the request's valid device cookie, or undefined. */
function deviceIssuedAt(request: FastifyRequest): number | undefined {
  const header = request.headers.cookie;
  const match = typeof header === 'string' ? COOKIE_VALUE.exec(header) : null;
  if (!match) return undefined;
  const issuedAt = Number(match[1]);
  const now = Math.floor(request.server.services.clock.now() / 1000);
  if (issuedAt > now || now - issuedAt >= DEVICE_LIFETIME_SECONDS) return undefined;
  return safeEqual(match[2]!, deviceMac(request.server.services, issuedAt)) ? issuedAt : undefined;
}

/** True when this instance already knows the request's device or source: no store read needed. */
export function knownInMemory(request: FastifyRequest, source: string): boolean {
  if (deviceIssuedAt(request) !== undefined) return true;
  const { services } = request.server;
  const cached = stateOf(services).knownSources.get(source);
  return cached !== undefined && cached > services.clock.now();
}

/** True when the request comes from a device or a source that authenticated lately. */
export async function isKnownClient(request: FastifyRequest, source: string): Promise<boolean> {
  if (knownInMemory(request, source)) return true;
  const { services } = request.server;
  const now = services.clock.now();
  const row = await services.store.db
    .selectFrom('admin_known_sources')
    .select('expires_at')
    .where('source', '=', source)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  if (row) remember(services, source, row.expires_at);
  return row !== undefined;
}

function remember(services: Services, source: string, expiresAt: number): void {
  const known = stateOf(services).knownSources;
  if (known.size >= KNOWN_SOURCE_CACHE_SIZE) known.clear();
  known.set(source, expiresAt);
}

/**
 * After a successful authentication: a browser gets a device cookie (HttpOnly, SameSite=Strict,
 * Secure over https); a client that came without a valid cookie (an API client, a first sign-in) makes
 * its source known, in the store, so every instance knows it.
 */
export function rememberClient(request: FastifyRequest, reply: FastifyReply, source: string): Promise<void> | undefined {
  const { services } = request.server;
  const now = services.clock.now();
  const issuedAt = deviceIssuedAt(request);
  const nowSeconds = Math.floor(now / 1000);
  // Only a browser keeps a cookie, and every browser's fetch says Sec-Fetch-Mode: API clients
  // (known by their address) are spared a MAC and a header on every answer.
  const browser = request.headers['sec-fetch-mode'] !== undefined;
  if (browser && (issuedAt === undefined || nowSeconds - issuedAt >= DEVICE_RENEWAL_SECONDS)) {
    const secure = request.protocol === 'https' ? '; Secure' : '';
    reply.header(
      'set-cookie',
      `${DEVICE_COOKIE}=${nowSeconds}.${deviceMac(services, nowSeconds)}; Path=/; Max-Age=${DEVICE_LIFETIME_SECONDS}; HttpOnly; SameSite=Strict${secure}`,
    );
  }
  // A browser is known by its cookie: its address (perhaps shared with strangers) is not made known.
  if (issuedAt !== undefined) return;
  const cached = stateOf(services).knownSources.get(source);
  if (cached !== undefined && cached - now > KNOWN_SOURCE_LIFETIME_MS - KNOWN_SOURCE_REFRESH_MS) return;
  const expiresAt = now + KNOWN_SOURCE_LIFETIME_MS;
  // Bookkeeping below the features, as the failure limit's charge: no change, no retry key.
  return services.store
    .write(
      (trx) =>
        trx
          .insertInto('admin_known_sources')
          .values({ source, expires_at: expiresAt })
          .onConflict((conflict) => conflict.column('source').doUpdateSet({ expires_at: expiresAt }))
          .execute(),
      undefined,
    )
    .then(() => remember(services, source, expiresAt));
}

export interface AdminKnownSourcesTable {
  /** The keyed hash of the client address, as the limits count it. */
  source: string;
  expires_at: number;
}

declare module '../store/schema.ts' {
  interface Database {
    admin_known_sources: AdminKnownSourcesTable;
  }
}
