import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateKeyPairSync } from 'node:crypto';
import { signatureHeaders } from 'web-bot-auth';
import { signerFromJWK } from 'web-bot-auth/crypto';

/** An agent that signs with Web Bot Auth (web-bot-auth's own signing) and serves its key directory on loopback. */
export interface TestSigner {
  origin: string;
  /** Requests its key directory has answered. */
  directoryHits: number;
  /** The signature headers for a request to `url`, valid from `createdAt` for `seconds`. */
  sign(url: string, options?: { createdAt?: Date; seconds?: number; agent?: string }): Promise<Record<string, string>>;
  close(): Promise<void>;
}

function keyPair(): { privateJwk: JsonWebKey; publicJwk: JsonWebKey } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return { privateJwk: privateKey.export({ format: 'jwk' }), publicJwk: publicKey.export({ format: 'jwk' }) };
}

/** `served`: the keys its directory lists (its own by default); `signing`: the key it signs with. */
export async function startSigner(options: { listOwnKey?: boolean } = {}): Promise<TestSigner> {
  const own = keyPair();
  const other = keyPair();
  const listed = options.listOwnKey === false ? other.publicJwk : own.publicJwk;
  let hits = 0;
  const server: Server = createServer((request, response) => {
    if (request.url !== '/.well-known/http-message-signatures-directory') return void response.writeHead(404).end();
    hits += 1;
    response.writeHead(200, { 'content-type': 'application/http-message-signatures-directory+json' }).end(JSON.stringify({ keys: [listed] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const signer = await signerFromJWK(own.privateJwk);
  return {
    origin,
    get directoryHits() {
      return hits;
    },
    async sign(url, { createdAt = new Date(), seconds = 300, agent = `"${origin}"` } = {}) {
      const headers = { 'Signature-Agent': agent };
      const signed = await signatureHeaders(new Request(url, { headers }), signer, { created: createdAt, expires: new Date(createdAt.getTime() + seconds * 1000) });
      return { 'signature-agent': agent, signature: signed.Signature, 'signature-input': signed['Signature-Input'] };
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
