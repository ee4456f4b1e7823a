import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KeyedMutex } from './keyed-mutex.ts';

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

test('work on one key runs one at a time, in arrival order', async () => {
  const mutex = new KeyedMutex();
  const log: string[] = [];
  let running = 0;
  await Promise.all(
    [1, 2, 3].map((n) =>
      mutex.run(['z'], async () => {
        running++;
        assert.equal(running, 1);
        log.push(`start ${n}`);
        await tick();
        log.push(`end ${n}`);
        running--;
      }),
    ),
  );
  assert.deepEqual(log, ['start 1', 'end 1', 'start 2', 'end 2', 'start 3', 'end 3']);
});

test('different keys run side by side; multi-key holders in opposite order do not deadlock', async () => {
  const mutex = new KeyedMutex();
  const order: string[] = [];
  const a = mutex.run(['a'], async () => {
    order.push('a');
    await tick();
  });
  const b = mutex.run(['b'], async () => {
    order.push('b');
    await tick();
  });
  const ab = mutex.run(['a', 'b'], async () => void order.push('ab'));
  const ba = mutex.run(['b', 'a'], async () => void order.push('ba'));
  await Promise.all([a, b, ab, ba]);
  assert.deepEqual(order, ['a', 'b', 'ab', 'ba']);
  await mutex.idle();
});

test('a failing holder releases its keys', async () => {
  const mutex = new KeyedMutex();
  await assert.rejects(
    mutex.run(['k'], () => Promise.reject(new Error('boom'))),
    /boom/,
  );
  assert.equal(await mutex.run(['k'], () => Promise.resolve(7)), 7);
});
