import { describe, expect, it } from 'vitest';
import { fetchKeyDirectory } from '../../src/bot-auth/key-directory.ts';
import { isPublicAddress } from '../../src/bot-auth/public-address.ts';

describe('the key directory fetch reaches public addresses only', () => {
  it('tells public addresses from loopback, private, link-local, shared, reserved and mapped ones', () => {
    for (const address of ['93.184.215.14', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8']) expect(isPublicAddress(address), address).toBe(true);
    const notPublic = ['127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '224.0.0.1', '::1', '::', 'fe80::1', 'fd00::1', '::ffff:127.0.0.1', '::ffff:7f00:1', '64:ff9b::7f00:1', 'not an address'];
    for (const address of notPublic) expect(isPublicAddress(address), address).toBe(false);
  });

  it('refuses http, private literals and names that resolve to loopback, before or at the connection', async () => {
    const rule = { allowLoopback: false };
    expect(await fetchKeyDirectory(new URL('http://93.184.215.14'), rule)).toBeUndefined();
    expect(await fetchKeyDirectory(new URL('https://169.254.169.254'), rule)).toBeUndefined();
    expect(await fetchKeyDirectory(new URL('https://[::1]'), rule)).toBeUndefined();
    // localhost resolves to a loopback address: the guarded lookup refuses it before any connection.
    expect(await fetchKeyDirectory(new URL('https://localhost:1'), rule)).toBeUndefined();
  });
});
