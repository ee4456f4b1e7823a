import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Readiness, liveness, readiness } from './health.ts';
import type { DnsServingState } from './health.ts';

describe('/healthz and /readyz of run', () => {
  const opts = { now: 1_000_000, staleAfterMs: 180_000, maxConsecutiveFailures: 10 };
  const state = (s: Partial<{ lastAttemptAt: number; lastSuccessAt: number; consecutiveFailures: number }>) => ({
    lastAttemptAt: 0,
    lastSuccessAt: 0,
    consecutiveFailures: 0,
    ...s,
  });

  test('healthy before the first attempt and while syncs succeed or fail less than the limit', () => {
    assert.deepEqual(liveness(state({}), opts), { ok: true, detail: 'ok' });
    assert.deepEqual(liveness(state({ lastAttemptAt: 999_000, consecutiveFailures: 9 }), opts), { ok: true, detail: 'ok' });
  });

  test('unhealthy with a short reason once the limit of failures in a row is reached; 0 turns that off', () => {
    const failing = state({ lastAttemptAt: 999_000, lastSuccessAt: 1, consecutiveFailures: 10 });
    assert.deepEqual(liveness(failing, opts), { ok: false, detail: '10 synchronisations in a row failed (limit --healthz-max-consecutive-failures=10)' });
    assert.equal(liveness(failing, { ...opts, maxConsecutiveFailures: 0 }).ok, true);
  });

  test('unhealthy when the loop has not attempted a sync for too long', () => {
    assert.deepEqual(liveness(state({ lastAttemptAt: 1_000_000 - 200_000 }), opts), { ok: false, detail: 'no synchronisation attempted for 200s' });
  });

  test('ready once a sync has succeeded, and it stays so while later ones fail', () => {
    assert.deepEqual(readiness(state({})), { ok: false, detail: 'not synchronised yet' });
    assert.deepEqual(readiness(state({ consecutiveFailures: 3 })), { ok: false, detail: 'not synchronised yet: 3 attempts failed' });
    assert.deepEqual(readiness(state({ lastSuccessAt: 5 })), { ok: true, detail: 'ok' });
    assert.deepEqual(readiness(state({ lastSuccessAt: 5, consecutiveFailures: 20 })), { ok: true, detail: 'ok' });
  });

  test('with the DNS server: ready only once it listens and answers every zone, with the reason until then', () => {
    const sync = state({});
    const r = new Readiness(sync);
    let dns: DnsServingState = { listening: false, zones: 2, loading: ['a.example.', 'b.example.'], failed: [] };
    r.watchDns(() => dns);
    assert.deepEqual(r.report(), { ok: false, detail: 'not synchronised yet' });
    sync.lastSuccessAt = 5;
    assert.deepEqual(r.report(), { ok: false, detail: 'the DNS server is not listening' });
    dns = { ...dns, listening: true };
    assert.deepEqual(r.report(), { ok: false, detail: 'the DNS server is still loading 2 of 2 zones (a.example., b.example.)' });
    dns = { ...dns, loading: [], failed: [{ zone: 'b.example.', error: 'bad zone' }] };
    assert.deepEqual(r.report(), { ok: false, detail: 'zones failed to load: b.example.: bad zone' });
    dns = { ...dns, failed: [] };
    assert.deepEqual(r.report(), { ok: true, detail: 'ok' });
    // A later swap in progress does not flap it: the previous content still answers.
    dns = { ...dns, loading: ['a.example.'] };
    assert.deepEqual(r.report(), { ok: true, detail: 'ok' });
  });

  test('not ready from the stop signal on, and when the DNS server stops listening', () => {
    const r = new Readiness(state({ lastSuccessAt: 5 }));
    let dns: DnsServingState = { listening: true, zones: 1, loading: [], failed: [] };
    r.watchDns(() => dns);
    assert.equal(r.report().ok, true);
    dns = { ...dns, listening: false };
    assert.deepEqual(r.report(), { ok: false, detail: 'the DNS server is not listening' });
    dns = { ...dns, listening: true };
    r.stopping();
    assert.deepEqual(r.report(), { ok: false, detail: 'shutting down: draining DNS queries before stopping' });
  });

  test('without a DNS server it is the sync readiness until the stop signal', () => {
    const r = new Readiness(state({ lastSuccessAt: 5 }));
    assert.equal(r.report().ok, true);
    r.stopping();
    assert.equal(r.report().ok, false);
  });
});
