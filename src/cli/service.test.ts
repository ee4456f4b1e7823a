import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { silentLogger } from '../log.ts';
import { kubeEnv, runService } from './service.ts';

function recorder(failStart = false): { calls: string[]; service: { start(): Promise<void>; stop(): Promise<void> } } {
  const calls: string[] = [];
  return {
    calls,
    service: {
      start: () => {
        calls.push('start');
        return failStart ? Promise.reject(new Error('cannot start')) : Promise.resolve();
      },
      stop: () => {
        calls.push('stop');
        return Promise.resolve();
      },
    },
  };
}

describe('runService', () => {
  test('starts, waits for the stop signal, then stops and exits 0', async () => {
    const { calls, service } = recorder();
    const stop = new AbortController();
    const running = runService({ logger: silentLogger(), stopSignal: stop.signal, env: {} }, 'test', () => Promise.resolve(service));
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(calls, ['start']);
    stop.abort();
    assert.equal(await running, 0);
    assert.deepEqual(calls, ['start', 'stop']);
  });

  test('an already aborted signal stops at once', async () => {
    const { calls, service } = recorder();
    assert.equal(await runService({ logger: silentLogger(), stopSignal: AbortSignal.abort(), env: {} }, 'test', () => Promise.resolve(service)), 0);
    assert.deepEqual(calls, ['start', 'stop']);
  });

  test('a failed start still stops, and the error reaches the caller', async () => {
    const { calls, service } = recorder(true);
    await assert.rejects(
      runService({ logger: silentLogger(), stopSignal: new AbortController().signal, env: {} }, 'test', () => Promise.resolve(service)),
      /cannot start/,
    );
    assert.deepEqual(calls, ['start', 'stop']);
  });

  test('kubeEnv passes on only the variables that locate a kubeconfig', () => {
    assert.deepEqual(kubeEnv({ KUBECONFIG: '/k', HOME: '/h', SECRET: 'x', KUBERNETES_SERVICE_HOST: '10.0.0.1' }), {
      KUBECONFIG: '/k',
      HOME: '/h',
      KUBERNETES_SERVICE_HOST: '10.0.0.1',
      KUBERNETES_SERVICE_PORT: undefined,
    });
  });
});
