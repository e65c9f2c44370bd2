import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ATTACKER, BYSTANDER, closedCount, destroyAll, pause, rawConnection, spread, startServer, timedHealth, type SpawnedServer } from './hostile-support.ts';

/*
 * Slow requests and connection floods against a real `parley serve` process run as a small host
 * would (`ulimit -n 512`, about the least the server starts under: loading its packages opens some
 * 300 files at once), with short timeouts; the figures are printed, not only asserted.
 * MAX_CONNECTIONS = 128 as a limit of 256 would derive (256 − 128), per source 128 / 8 = 16.
 * test/reliability/connection-flood.test.ts holds the cap full from eight addresses.
 */
const MAX_CONNECTIONS = 128;
const PER_SOURCE = 16;
const REQUEST_TIMEOUT_MS = 4_000;
const HEADERS_TIMEOUT_MS = 1_000;
const SLOW_BODY = 'POST /api/conversations HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{';

describe('slow requests and connection floods', () => {
  let server: SpawnedServer;
  beforeAll(async () => {
    server = await startServer(
      { MAX_CONNECTIONS: String(MAX_CONNECTIONS), REQUEST_TIMEOUT_SECONDS: String(REQUEST_TIMEOUT_MS / 1000), HEADERS_TIMEOUT_SECONDS: String(HEADERS_TIMEOUT_MS / 1000) },
      512,
    );
  });
  afterAll(async () => server?.stop());

  it('cuts off a body or headers sent a byte at a time once their timeout passes, answering 408 request_timeout', async () => {
    const startedAt = performance.now();
    const slowBody = rawConnection(server.port, ATTACKER, SLOW_BODY, true, startedAt);
    const slowHeaders = rawConnection(server.port, ATTACKER, 'GET /api/health HTTP/1.1\r\n', true, startedAt);
    // One byte each every 250 ms, for at most 8 s: without the timeouts neither is ever cut off.
    for (let byte = 0; byte < 32 && (slowBody.closedAfter() === undefined || slowHeaders.closedAfter() === undefined); byte++) {
      await Promise.race([pause(250), Promise.all([slowBody.closed, slowHeaders.closed])]);
      if (slowBody.closedAfter() === undefined) slowBody.socket.write('a');
      if (slowHeaders.closedAfter() === undefined) slowHeaders.socket.write('X');
    }
    destroyAll([slowBody, slowHeaders]);
    console.warn(
      `a byte every 250 ms: the body was cut off after ${slowBody.closedAfter()} ms (REQUEST_TIMEOUT_SECONDS=${REQUEST_TIMEOUT_MS / 1000}), ` +
        `the headers after ${slowHeaders.closedAfter()} ms (HEADERS_TIMEOUT_SECONDS=${HEADERS_TIMEOUT_MS / 1000})`,
    );
    for (const [connection, timeoutMs] of [[slowBody, REQUEST_TIMEOUT_MS], [slowHeaders, HEADERS_TIMEOUT_MS]] as const) {
      expect(connection.received()).toMatch(/^HTTP\/1\.1 408 /);
      expect(connection.received()).toContain('"code":"request_timeout"');
      expect(connection.closedAfter()).toBeGreaterThanOrEqual(timeoutMs - 50);
      // Node checks the timeouts once a second.
      expect(connection.closedAfter()).toBeLessThan(timeoutMs + 2_500);
    }
  });

  it('keeps answering other sources while one source opens 300 slow-body connections, and stays up past the global cap', async () => {
    const startedAt = performance.now();
    const fromOne = Array.from({ length: 300 }, () => rawConnection(server.port, ATTACKER, SLOW_BODY, true, startedAt));
    const refusedFromOne = await closedCount(fromOne, fromOne.length - PER_SOURCE, 2_500);
    const health = [];
    for (let attempt = 0; attempt < 3; attempt++) health.push(await timedHealth(server.port, BYSTANDER, 3_000));
    console.warn(
      `one source, 300 slow-body connections: ${refusedFromOne} closed within ${spread(fromOne.map((c) => c.closedAfter() ?? 0)).max} ms, ` +
        `${fromOne.length - refusedFromOne} held; health from another source: ${health.map((answer) => `${answer.status} in ${answer.ms} ms`).join(', ')}`,
    );
    expect(refusedFromOne).toBe(fromOne.length - PER_SOURCE);
    for (const answer of health) expect(answer.status).toBe(200);
    expect(spread(health.map((answer) => answer.ms)).max).toBeLessThan(2_000);

    // Twelve more sources with 12 connections each: 16 + 144 = 160 asked, 128 fit. Past the cap the
    // server sheds the slow bodies silent longest (the first source's) to make room.
    const fromMany = Array.from({ length: 144 }, (_, index) => rawConnection(server.port, `127.0.0.${3 + (index % 12)}`, SLOW_BODY, true, startedAt));
    const everyone = [...fromOne, ...fromMany];
    const shedOrRefused = (await closedCount(everyone, everyone.length - MAX_CONNECTIONS, 2_000)) - refusedFromOne;
    const refusedAfter = spread(everyone.map((c) => c.closedAfter() ?? 0)).max;
    const healthPastCap = await timedHealth(server.port, BYSTANDER, 3_000);
    // The request timeout then frees every slot, and the server answers again.
    const closedInTheEnd = await closedCount(everyone, everyone.length, REQUEST_TIMEOUT_MS + 2_500);
    const recovered = await timedHealth(server.port, BYSTANDER, 3_000);
    const timedOut = everyone.filter((connection) => connection.received().startsWith('HTTP/1.1 408 ')).length;
    destroyAll(everyone);
    console.warn(
      `12 more sources, 144 connections past the global cap of ${MAX_CONNECTIONS}: ${shedOrRefused} shed or refused by ${refusedAfter} ms, ` +
        `health meanwhile ${healthPastCap.status} in ${healthPastCap.ms} ms; ` +
        `all ${closedInTheEnd}/${everyone.length} closed by ${spread(everyone.map((c) => c.closedAfter() ?? Infinity)).max} ms (${timedOut} answered 408); ` +
        `health afterwards ${recovered.status} in ${recovered.ms} ms`,
    );
    expect(shedOrRefused).toBe(PER_SOURCE + fromMany.length - MAX_CONNECTIONS);
    expect(healthPastCap.status).toBe(200);
    expect(closedInTheEnd).toBe(everyone.length);
    // The health probe past the cap shed one batch (a 32nd of the cap) to get in.
    expect(timedOut).toBe(MAX_CONNECTIONS - MAX_CONNECTIONS / 32);
    expect(recovered.status).toBe(200);
    expect(server.process.child.exitCode).toBeNull();
  });
});
