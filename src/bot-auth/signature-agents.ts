import type { FastifyRequest } from 'fastify';
import { helpers, jwkToKeyID, verify, type Verify } from 'web-bot-auth';
import { verifierFromJWK } from 'web-bot-auth/crypto';
import type { Clock } from '../clock.ts';
import type { BotAuthConfig } from '../trust-config.ts';
import { fetchableOrigin, fetchKeyDirectory } from './key-directory.ts';

/** Directories kept at once; past it the oldest is dropped. */
const MAX_DIRECTORIES = 1_000;
/** Keys read from one directory. */
const MAX_KEYS = 16;
/** Directory fetches under way at once, across origins; past it a new origin's request is treated as unsigned. */
const MAX_FETCHES = 8;
/** An origin whose directory could not be read is not asked again for this long. */
const FAILED_FETCH_MS = 60_000;

/** One origin's keys by key id (the JWK thumbprint), and until when they are trusted. */
interface Directory {
  keys: Map<string, JsonWebKey>;
  expiresAt: number;
}

const SIGNATURE_AGENT = /^\s*(?:[a-z*][a-z0-9_.*-]*=)?"([^"]{1,2000})"/;

/** The origin a Signature-Agent header names (a quoted URL, or a dictionary member whose value is one); undefined otherwise. */
function signatureAgentOrigin(header: string | string[] | undefined): URL | undefined {
  if (typeof header !== 'string') return undefined;
  const quoted = SIGNATURE_AGENT.exec(header)?.[1];
  if (quoted === undefined) return undefined;
  try {
    const url = new URL(quoted);
    return new URL(url.origin);
  } catch {
    return undefined;
  }
}

/** A signature that binds this service's authority and the Signature-Agent header, with the Web Bot Auth tag. */
function coversWhatMatters(signatureInput: string): boolean {
  return signatureInput.includes('"@authority"') && signatureInput.includes('"signature-agent"') && /;\s*tag="web-bot-auth"/.test(signatureInput);
}

/**
 * Web Bot Auth (HTTP Message Signatures, RFC 9421, with the web-bot-auth package): a request signed
 * by a key of the directory its Signature-Agent names is from that origin. A request without a
 * signature, with a bad or expired one, or whose directory cannot be read is unsigned: never an
 * error. Directories are cached (bounded, expiring), one fetch per origin at a time and few at once.
 */
export class SignatureAgents {
  readonly #directories = new Map<string, Directory>();
  readonly #fetching = new Map<string, Promise<Directory>>();

  constructor(
    private readonly config: BotAuthConfig,
    private readonly clock: Clock,
  ) {}

  /** The verified origin of the request (e.g. "https://agent.example"), or null. */
  async originOf(request: FastifyRequest): Promise<string | null> {
    const { signature, 'signature-input': signatureInput } = request.headers;
    if (!this.config.enabled || typeof signature !== 'string' || typeof signatureInput !== 'string' || !coversWhatMatters(signatureInput)) return null;
    const origin = signatureAgentOrigin(request.headers['signature-agent']);
    if (origin === undefined || !fetchableOrigin(origin, this.config)) return null;
    const directory = await this.#directory(origin);
    if (directory === undefined || directory.keys.size === 0) return null;
    const keyOf: Verify<void> = async (data, signatureBytes, params) => {
      const jwk = directory.keys.get(params.keyid);
      if (jwk === undefined) throw new Error('unknown key');
      await (await verifierFromJWK(jwk))(data, signatureBytes, params);
    };
    const message = { method: request.method, url: `${request.protocol}://${request.host}${request.url}`, headers: request.headers as Record<string, string> };
    try {
      await verify(message, keyOf);
      return origin.origin;
    } catch {
      return null;
    }
  }

  async #directory(origin: URL): Promise<Directory | undefined> {
    const now = this.clock.now();
    const cached = this.#directories.get(origin.origin);
    if (cached && cached.expiresAt > now) return cached;
    const underWay = this.#fetching.get(origin.origin);
    if (underWay) return underWay;
    if (this.#fetching.size >= MAX_FETCHES) return undefined;
    const fetching = this.#fetch(origin).finally(() => this.#fetching.delete(origin.origin));
    this.#fetching.set(origin.origin, fetching);
    return fetching;
  }

  async #fetch(origin: URL): Promise<Directory> {
    const document = await fetchKeyDirectory(origin, this.config);
    const keys = await keysOf(document);
    const lifetime = keys.size > 0 ? this.config.cacheSeconds * 1000 : FAILED_FETCH_MS;
    const directory = { keys, expiresAt: this.clock.now() + lifetime };
    this.#directories.delete(origin.origin);
    if (this.#directories.size >= MAX_DIRECTORIES) this.#directories.delete(this.#directories.keys().next().value!);
    this.#directories.set(origin.origin, directory);
    return directory;
  }
}

/** The directory's keys by their thumbprint (the keyid a signature names); anything unreadable is left out. */
async function keysOf(document: unknown): Promise<Map<string, JsonWebKey>> {
  const keys = new Map<string, JsonWebKey>();
  const listed = (document as { keys?: unknown } | undefined)?.keys;
  if (!Array.isArray(listed)) return keys;
  for (const jwk of listed.slice(0, MAX_KEYS)) {
    if (typeof jwk !== 'object' || jwk === null) continue;
    try {
      keys.set(await jwkToKeyID(jwk as JsonWebKey, helpers.WEBCRYPTO_SHA256, helpers.BASE64URL_DECODE), jwk as JsonWebKey);
    } catch {
      continue;
    }
  }
  return keys;
}
