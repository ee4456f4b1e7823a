import assert from 'node:assert/strict';
import { test } from 'node:test';
import { NameserverPool } from './nameservers.ts';

test('disabled: one server until it fails, then the next one, kept', async () => {
  const pool = new NameserverPool(['a', 'b', 'c']);
  assert.equal(pool.next('send'), 'a');
  assert.equal(pool.next('send'), 'a');
  const tried: string[] = [];
  const got = await pool.run('send', (s) => {
    tried.push(s);
    return s === 'a' ? Promise.reject(new Error('down')) : Promise.resolve(s);
  });
  assert.deepEqual(tried, ['a', 'b']);
  assert.equal(got, 'b');
  assert.equal(pool.next('send'), 'b', 'stays on the server that worked');
  assert.equal(pool.next('list'), 'a', 'transfers rotate on their own');
});

test('round-robin: the next server for every operation; every server tried once, then the last error', async () => {
  const pool = new NameserverPool(['a', 'b'], 'round-robin');
  assert.deepEqual([pool.next('send'), pool.next('send'), pool.next('send')], ['a', 'b', 'a']);
  const tried: string[] = [];
  await assert.rejects(
    pool.run('list', (s) => {
      tried.push(s);
      return Promise.reject(new Error(`${s} down`));
    }),
    /b down/,
  );
  assert.deepEqual(tried, ['a', 'b']);
});

test('random: never the server used just before', () => {
  const rolls = [0, 1, 0, 1, 1];
  const pool = new NameserverPool(['a', 'b', 'c'], 'random', () => rolls.shift() ?? 0);
  const picks = [1, 2, 3, 4, 5].map(() => pool.next('send'));
  for (let i = 1; i < picks.length; i++) assert.notEqual(picks[i], picks[i - 1]);
  assert.equal(new NameserverPool(['only'], 'random').next('send'), 'only');
});
