import { createDecipheriv, createECDH, createPublicKey, hkdfSync, randomBytes, verify } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

const b64url = (buffer: Buffer) => buffer.toString('base64url');

/** A push as the endpoint checked it: the VAPID claims and the decrypted payload. */
export interface ReceivedPush {
  path: string;
  headers: IncomingHttpHeaders;
  claims: { aud: string; exp: number; sub: string };
  payload: string;
}

/**
 * A push service stand-in on 127.0.0.1 holding one browser's keys: it checks the VAPID JWT (ES256
 * over the key in `k=`, aud, exp, sub) and decrypts the aes128gcm body as the browser would
 * (RFC 8291 key derivation, RFC 8188 record), refusing with 401 or 400 what does not check out.
 */
export class PushEndpoint {
  readonly received: ReceivedPush[] = [];
  readonly refusals: string[] = [];
  /** The status it answers a valid push with (201; 410 plays a subscription that expired). */
  status = 201;
  private readonly browser = createECDH('prime256v1');
  private readonly authSecret = randomBytes(16);
  private server: Server | undefined;
  private base = '';

  constructor(private readonly vapidPublicKey: string) {
    this.browser.generateKeys();
  }

  async start(): Promise<void> {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        try {
          const claims = this.checkVapid(request.headers.authorization ?? '');
          const payload = this.decrypt(Buffer.concat(chunks));
          this.received.push({ path: request.url ?? '', headers: request.headers, claims, payload });
          response.writeHead(this.status).end();
        } catch (error) {
          this.refusals.push((error as Error).message);
          response.writeHead(400).end();
        }
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** The browser's PushSubscription.toJSON(). */
  subscription(path = '/push/browser-1') {
    return { endpoint: `${this.base}${path}`, keys: { p256dh: b64url(this.browser.getPublicKey()), auth: b64url(this.authSecret) } };
  }

  get origin(): string {
    return this.base;
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private checkVapid(authorization: string): ReceivedPush['claims'] {
    const match = /^vapid t=([^,\s]+),\s*k=([A-Za-z0-9_-]+)$/.exec(authorization);
    if (!match) throw new Error('no vapid authorization');
    const [, jwt, key] = match as unknown as [string, string, string];
    if (key !== this.vapidPublicKey) throw new Error('k is not the server key');
    const [header, body, signature] = jwt.split('.') as [string, string, string];
    if (JSON.parse(Buffer.from(header, 'base64url').toString()).alg !== 'ES256') throw new Error('not ES256');
    const point = Buffer.from(key, 'base64url');
    const publicKey = createPublicKey({ key: { kty: 'EC', crv: 'P-256', x: b64url(point.subarray(1, 33)), y: b64url(point.subarray(33, 65)) }, format: 'jwk' });
    const valid = verify('sha256', Buffer.from(`${header}.${body}`), { key: publicKey, dsaEncoding: 'ieee-p1363' }, Buffer.from(signature, 'base64url'));
    if (!valid) throw new Error('bad signature');
    const claims = JSON.parse(Buffer.from(body, 'base64url').toString()) as ReceivedPush['claims'];
    const now = Math.floor(Date.now() / 1000);
    if (claims.aud !== this.base) throw new Error('aud is not the endpoint origin');
    if (!(claims.exp > now && claims.exp <= now + 86_400)) throw new Error('exp out of range');
    if (!/^(mailto:|https:)/.test(claims.sub)) throw new Error('no sub');
    return claims;
  }

  private decrypt(body: Buffer): string {
    const salt = body.subarray(0, 16);
    const recordSize = body.readUInt32BE(16);
    const idLength = body[20]!;
    const serverPublic = body.subarray(21, 21 + idLength);
    const record = body.subarray(21 + idLength);
    if (record.length > recordSize) throw new Error('more than one record');
    const secret = this.browser.computeSecret(serverPublic);
    const keyInfo = Buffer.concat([Buffer.from('WebPush: info\0'), this.browser.getPublicKey(), serverPublic]);
    const ikm = Buffer.from(hkdfSync('sha256', secret, this.authSecret, keyInfo, 32));
    const cek = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: aes128gcm\0'), 16));
    const nonce = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: nonce\0'), 12));
    const decipher = createDecipheriv('aes-128-gcm', cek, nonce);
    decipher.setAuthTag(record.subarray(record.length - 16));
    const padded = Buffer.concat([decipher.update(record.subarray(0, record.length - 16)), decipher.final()]);
    let end = padded.length - 1;
    while (end > 0 && padded[end] === 0) end -= 1;
    if (padded[end] !== 2) throw new Error('no last-record delimiter');
    return padded.subarray(0, end).toString('utf8');
  }
}
