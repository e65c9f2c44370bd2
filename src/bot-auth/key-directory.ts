import { lookup } from 'node:dns';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { HTTP_MESSAGE_SIGNATURES_DIRECTORY } from 'web-bot-auth';
import { isLoopbackAddress, isPublicAddress } from './public-address.ts';

/** A key directory is a few keys: more than this is not one. */
const MAX_DIRECTORY_BYTES = 64 * 1024;
const FETCH_TIMEOUT_MS = 3_000;

/** Which addresses a directory may be fetched from: public ones over https; with the test switch, loopback over http as well. */
export interface AddressRule {
  allowLoopback: boolean;
}

function allowed(address: string, rule: AddressRule): boolean {
  return isPublicAddress(address) || (rule.allowLoopback && isLoopbackAddress(address));
}

/**
 * The name resolved, every address it has checked, and the connection made to the address checked
 * (the lookup hands it to the socket), so a name that changes its answer between the check and the
 * connection cannot lead it to a private address.
 */
function guardedLookup(rule: AddressRule): LookupFunction {
  return (hostname, options, callback) => {
    lookup(hostname, { all: true }, (error, addresses) => {
      if (error) return callback(error, '', 0);
      const refused = addresses.length === 0 || addresses.some((entry) => !allowed(entry.address, rule));
      if (refused) return callback(Object.assign(new Error('key directory host is not a public address'), { code: 'EADDRNOTPUBLIC' }), '', 0);
      const first = addresses[0]!;
      if (options.all) return (callback as unknown as (e: null, all: typeof addresses) => void)(null, addresses);
      return callback(null, first.address, first.family);
    });
  };
}

/** Whether an origin may be asked for its key directory at all: https, or http on loopback under the test switch. */
export function fetchableOrigin(origin: URL, rule: AddressRule): boolean {
  if (origin.username !== '' || origin.password !== '') return false;
  if (origin.protocol === 'https:') return true;
  const host = origin.hostname.replace(/^\[|\]$/g, '');
  return rule.allowLoopback && origin.protocol === 'http:' && (host === 'localhost' || isLoopbackAddress(host));
}

/**
 * GET <origin>/.well-known/http-message-signatures-directory, guarded: only the addresses the rule
 * allows, no redirect followed, within FETCH_TIMEOUT_MS and MAX_DIRECTORY_BYTES. The parsed JSON, or
 * undefined for anything else (an error, a status other than 200, too large, not JSON).
 */
export function fetchKeyDirectory(origin: URL, rule: AddressRule): Promise<unknown> {
  const url = new URL(HTTP_MESSAGE_SIGNATURES_DIRECTORY, origin);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!fetchableOrigin(origin, rule) || (isIP(host) !== 0 && !allowed(host, rule))) return Promise.resolve(undefined);
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    const request = send(url, { method: 'GET', lookup: guardedLookup(rule), headers: { accept: 'application/http-message-signatures-directory+json, application/json' }, timeout: FETCH_TIMEOUT_MS });
    const timer = setTimeout(() => request.destroy(), FETCH_TIMEOUT_MS);
    const done = (value: unknown) => {
      clearTimeout(timer);
      resolve(value);
    };
    request.on('error', () => done(undefined));
    request.on('timeout', () => request.destroy());
    request.on('response', (response: IncomingMessage) => {
      if (response.statusCode !== 200 || Number(response.headers['content-length'] ?? 0) > MAX_DIRECTORY_BYTES) {
        response.resume();
        request.destroy();
        return done(undefined);
      }
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_DIRECTORY_BYTES) {
          request.destroy();
          return done(undefined);
        }
        chunks.push(chunk);
      });
      response.on('error', () => done(undefined));
      response.on('end', () => {
        try {
          done(JSON.parse(Buffer.concat(chunks).toString('utf8')));
        } catch {
          done(undefined);
        }
      });
    });
    request.end();
  });
}
