import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, readConfig } from '../../src/config.ts';
import { ADMIN_TOKEN, adminHeaders, bearer, expectError, startApp, type TestApp } from '../helpers.ts';

const METRICS_TOKEN = 'metrics-token-for-tests-0123456789abcdef';

// Issue 17: GET /metrics answers the administrator token, or METRICS_TOKEN when it is set, and nobody else.
describe('GET /metrics authorization', () => {
  let t: TestApp;
  afterEach(() => t.close());

  it('answers 401 without a token or with a wrong one, and 200 in the Prometheus text format with the administrator token', async () => {
    t = await startApp();
    expectError(await t.inject({ method: 'GET', url: '/metrics' }), 401, 'admin_token_required');
    expectError(await t.inject({ method: 'GET', url: '/metrics', headers: bearer(METRICS_TOKEN) }), 401, 'admin_token_required');
    expectError(await t.inject({ method: 'GET', url: '/metrics', headers: { authorization: ADMIN_TOKEN } }), 401, 'admin_token_required');

    const response = await t.inject({ method: 'GET', url: '/metrics', headers: adminHeaders() });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.body).toContain('# TYPE parley_http_requests_total counter');
  });

  it('with METRICS_TOKEN set, answers that token and still the administrator token; the metrics token opens nothing else', async () => {
    t = await startApp({ env: { METRICS_TOKEN } });
    expect((await t.inject({ method: 'GET', url: '/metrics', headers: bearer(METRICS_TOKEN) })).statusCode).toBe(200);
    expect((await t.inject({ method: 'GET', url: '/metrics', headers: adminHeaders() })).statusCode).toBe(200);
    expectError(await t.inject({ method: 'GET', url: '/metrics', headers: bearer(`${METRICS_TOKEN}x`) }), 401, 'admin_token_required');
    expectError(await t.inject({ method: 'GET', url: '/api/admin/conversations', headers: bearer(METRICS_TOKEN) }), 401, 'admin_token_required');
  });

  it('charges wrong tokens to the administrator failure limit: 429 past it, while the scraper that authenticated before still gets in and an unknown source does not', async () => {
    t = await startApp({ env: { METRICS_TOKEN, LIMIT_ADMIN_AUTH_FAILURE_SOURCE: '2/1m' } });
    // The scraper's source authenticated before the flood (README, "Security").
    expect((await t.inject({ method: 'GET', url: '/metrics', headers: bearer(METRICS_TOKEN) })).statusCode).toBe(200);
    for (let attempt = 0; attempt < 3; attempt += 1) await t.inject({ method: 'GET', url: '/metrics', headers: bearer('wrong'), remoteAddress: '198.18.10.1' });
    expect((await t.inject({ method: 'GET', url: '/metrics', headers: bearer(METRICS_TOKEN), remoteAddress: '198.18.10.1' })).statusCode).toBe(429);
    for (let attempt = 0; attempt < 2; attempt += 1) expectError(await t.inject({ method: 'GET', url: '/metrics', headers: bearer('wrong') }), 401, 'admin_token_required');
    const refused = await t.inject({ method: 'GET', url: '/metrics', headers: bearer('wrong') });
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toBeDefined();
    expect((await t.inject({ method: 'GET', url: '/metrics', headers: bearer(METRICS_TOKEN) })).statusCode).toBe(200);
  });

  it('refuses a METRICS_TOKEN shorter than the administrator token\'s minimum, naming the variable', () => {
    expect(() => readConfig({ METRICS_TOKEN: 'short' })).toThrow(ConfigError);
    expect(() => readConfig({ METRICS_TOKEN: 'short' })).toThrow(/^METRICS_TOKEN: /);
    expect(readConfig({ METRICS_TOKEN }).metricsToken).toBe(METRICS_TOKEN);
    expect(readConfig({}).metricsToken).toBeUndefined();
  });
});
