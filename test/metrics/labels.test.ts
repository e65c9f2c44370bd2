import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DELIVERY_KINDS } from '../../src/alerts/alerts.ts';
import { LIMIT_NAMES } from '../../src/limits/names.ts';
import { ADMIN_TOKEN, adminHeaders, bearer, createConversation, startApp, type Created, type TestApp } from '../helpers.ts';
import { scrape, valueOf, type Sample } from './exposition.ts';

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'OTHER'];
const MESSAGE = 'metrics must never carry this sentence';
const ADDRESS = '203.0.113.77';

/** The label names each family may carry; the process metrics are prom-client's own, fixed by Node. */
const ALLOWED_LABELS: Record<string, string[]> = {
  parley_http_requests_total: ['method', 'route', 'status'],
  parley_http_request_duration_seconds: ['method', 'route', 'status', 'le'],
  parley_rate_limit_refusals_total: ['limit'],
  parley_store_errors_total: ['fault'],
  parley_store_condition: ['condition'],
  parley_alert_deliveries_total: ['alert', 'result'],
  parley_build_info: ['version'],
  nodejs_version_info: ['version', 'major', 'minor', 'patch'],
  nodejs_heap_space_size_total_bytes: ['space'],
  nodejs_heap_space_size_used_bytes: ['space'],
  nodejs_heap_space_size_available_bytes: ['space'],
  nodejs_gc_duration_seconds: ['kind', 'le'],
  nodejs_active_resources: ['type'],
  nodejs_active_handles: ['type'],
  nodejs_active_requests: ['type'],
};

const family = (sample: Sample) => sample.name.replace(/_(bucket|sum|count)$/, '');

// Issue 17: no label carries an id, a token, an address or message text, whatever the traffic.
describe('metric labels after real traffic', () => {
  let t: TestApp;
  let created: Created;
  const randomHex = randomBytes(32).toString('hex');
  const randomId = randomUUID();

  beforeAll(async () => {
    t = await startApp({ env: { TRUST_PROXY: 'true', LIMIT_CONVERSATION_SOURCE: '2/1h' } });
    const fromProxy = { 'x-forwarded-for': ADDRESS };
    created = await createConversation(t, { message: MESSAGE }, fromProxy);
    await createConversation(t, { message: `${MESSAGE} again` }, fromProxy);
    const refused = await t.inject({ method: 'POST', url: '/api/conversations', payload: { message: MESSAGE }, headers: fromProxy });
    expect(refused.statusCode).toBe(429);
    const id = created.conversation_id;
    const requests = [
      { method: 'GET', url: `/api/conversations/${id}`, headers: bearer(created.access_token) },
      { method: 'HEAD', url: `/api/conversations/${id}`, headers: bearer(created.access_token) },
      { method: 'POST', url: `/api/conversations/${id}/messages`, headers: bearer(created.access_token), payload: { message: MESSAGE } },
      { method: 'GET', url: `/api/conversations/${randomId}`, headers: bearer(randomHex) },
      { method: 'GET', url: `/api/conversations/${randomHex}` },
      { method: 'GET', url: `/${randomHex}/${randomId}?access_token=${created.access_token}` },
      { method: 'GET', url: `/api/${encodeURIComponent(MESSAGE)}` },
      { method: 'DELETE', url: `/api/conversations/${id}`, headers: bearer(created.access_token) },
      { method: 'PROPFIND', url: `/api/${randomId}` },
      { method: 'GET', url: '/%zz' },
      { method: 'GET', url: `/api/admin/conversations/${id}`, headers: adminHeaders() },
      { method: 'GET', url: '/api/admin/conversations', headers: bearer(randomHex) },
      { method: 'GET', url: '/admin/' },
    ] as const;
    for (const request of requests) await t.inject({ ...request, headers: { ...fromProxy, ...('headers' in request ? request.headers : {}) } });
  });
  afterAll(() => t.close());

  it('use only the label names of each family, with values from closed sets', async () => {
    const { samples } = await scrape(t);
    const routes = new Set<string>();
    for (const sample of samples) {
      const allowed = ALLOWED_LABELS[family(sample)] ?? [];
      expect(Object.keys(sample.labels).filter((name) => !allowed.includes(name)), sample.name).toEqual([]);
      const { method, route, status, limit, fault, alert, result, condition } = sample.labels;
      if (method !== undefined) expect(METHODS).toContain(method);
      if (status !== undefined) expect(status).toMatch(/^[1-5]\d\d$/);
      if (limit !== undefined) expect(LIMIT_NAMES).toContain(limit);
      if (fault !== undefined) expect(['unreachable', 'no_space', 'io_error', 'corrupt']).toContain(fault);
      if (alert !== undefined) expect(DELIVERY_KINDS).toContain(alert);
      if (result !== undefined) expect(['sent', 'failed', 'over_budget']).toContain(result);
      if (condition !== undefined) expect(['ok', 'writes_failing', 'corrupt']).toContain(condition);
      if (route !== undefined) {
        routes.add(route);
        // A route label is a pattern the app registered for that method, or the one word for no route.
        if (route !== 'unmatched') expect(t.app.hasRoute({ method: method === 'OTHER' ? 'GET' : method!, url: route }), `${method} ${route}`).toBe(true);
      }
    }
    expect([...routes]).toEqual(expect.arrayContaining(['/api/conversations', '/api/conversations/:conversation_id', 'unmatched', '/admin/']));
    expect(valueOf(samples, 'parley_http_requests_total', { method: 'OTHER', route: 'unmatched', status: '404' })).toBe(1);
  });

  it('hold no id, token, address or message text anywhere in the exposition', async () => {
    const { text } = await scrape(t);
    for (const needle of [created.conversation_id, created.access_token, randomHex, randomId, ADDRESS, ADMIN_TOKEN, MESSAGE, 'metrics must never', '%zz']) {
      expect(text.toLowerCase(), needle).not.toContain(needle.toLowerCase());
    }
  });

  it('count requests per route and status, the refusal per limit name, and the inbox totals from its counters', async () => {
    const { samples } = await scrape(t);
    expect(valueOf(samples, 'parley_http_requests_total', { method: 'POST', route: '/api/conversations', status: '201' })).toBe(2);
    expect(valueOf(samples, 'parley_http_requests_total', { method: 'POST', route: '/api/conversations', status: '429' })).toBe(1);
    expect(valueOf(samples, 'parley_http_request_duration_seconds_count', { method: 'POST', route: '/api/conversations', status: '201' })).toBe(2);
    expect(valueOf(samples, 'parley_http_request_duration_seconds_bucket', { method: 'POST', route: '/api/conversations', status: '201', le: '+Inf' })).toBe(2);
    expect(valueOf(samples, 'parley_rate_limit_refusals_total', { limit: 'CONVERSATION_SOURCE' })).toBe(1);
    expect(valueOf(samples, 'parley_rate_limit_refusals_total', { limit: 'FOLLOWUP_SOURCE' })).toBe(0);
    expect(valueOf(samples, 'parley_conversations')).toBe(2);
    // The operator opened the first one (GET /api/admin/conversations/:id): only the second is unread.
    expect(valueOf(samples, 'parley_unread_threads')).toBe(1);
  });

  it('declare every metric docs/monitoring.md lists, with its type', async () => {
    const { text } = await scrape(t);
    const declared = [
      'parley_http_requests_total counter',
      'parley_http_request_duration_seconds histogram',
      'parley_rate_limit_refusals_total counter',
      'parley_conversations gauge',
      'parley_unread_threads gauge',
      'parley_store_errors_total counter',
      'parley_store_condition gauge',
      'parley_alert_deliveries_total counter',
      'parley_build_info gauge',
      'nodejs_eventloop_lag_seconds gauge',
      'nodejs_eventloop_lag_p99_seconds gauge',
      'process_cpu_seconds_total counter',
      'process_resident_memory_bytes gauge',
      'process_open_fds gauge',
      'nodejs_heap_size_used_bytes gauge',
      'nodejs_gc_duration_seconds histogram',
    ];
    for (const line of declared) expect(text).toContain(`# TYPE ${line}\n`);
  });

  it('include the store condition, event-loop lag and the default process metrics', async () => {
    const { samples } = await scrape(t);
    expect(valueOf(samples, 'parley_store_condition', { condition: 'ok' })).toBe(1);
    expect(valueOf(samples, 'parley_build_info')).toBe(1);
    for (const name of ['nodejs_eventloop_lag_seconds', 'nodejs_eventloop_lag_p99_seconds', 'process_cpu_seconds_total', 'process_resident_memory_bytes', 'nodejs_heap_size_used_bytes']) {
      expect(valueOf(samples, name), name).toBeGreaterThanOrEqual(0);
    }
  });
});
