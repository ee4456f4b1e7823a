import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { operationType, setGardenerCondition } from './status.ts';
import type { DNSRecord, LastOperation } from './types.ts';

function rec(opts: { annotation?: string; deleting?: boolean; last?: Pick<LastOperation, 'type' | 'state'> }): DNSRecord {
  return {
    metadata: {
      name: 'r',
      ...(opts.annotation === undefined ? {} : { annotations: { 'gardener.cloud/operation': opts.annotation } }),
      ...(opts.deleting === true ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}),
    },
    spec: { type: 'embedded', secretRef: { name: 's' }, name: 'a.example.org', recordType: 'A', values: ['192.0.2.1'] },
    ...(opts.last === undefined ? {} : { status: { lastOperation: { ...opts.last, description: '', lastUpdateTime: '', progress: 0 } } }),
  };
}

describe("operationType follows Gardener's rules", () => {
  const cases: [string, Parameters<typeof rec>[0], string][] = [
    ['no lastOperation', {}, 'Create'],
    ['deletion', { deleting: true, last: { type: 'Reconcile', state: 'Succeeded' } }, 'Delete'],
    ['migrate annotation wins over deletion', { annotation: 'migrate', deleting: true }, 'Migrate'],
    ['restore annotation', { annotation: 'restore', last: { type: 'Migrate', state: 'Succeeded' } }, 'Restore'],
    ['unfinished Create stays Create', { last: { type: 'Create', state: 'Error' } }, 'Create'],
    ['unfinished Restore stays Restore', { last: { type: 'Restore', state: 'Error' } }, 'Restore'],
    ['after a successful Create', { last: { type: 'Create', state: 'Succeeded' } }, 'Reconcile'],
    ['reconcile annotation', { annotation: 'reconcile', last: { type: 'Reconcile', state: 'Error' } }, 'Reconcile'],
  ];
  for (const [title, input, want] of cases) test(title, () => assert.equal(operationType(rec(input)), want));
});

describe("setGardenerCondition: Gardener's condition shape (its CRD requires both times)", () => {
  const t0 = new Date('2026-01-01T00:00:00Z');
  const t1 = new Date('2026-01-01T00:05:00Z');
  const created = { type: 'Created', status: 'True', reason: 'Created', message: 'the DNS record set exists' } as const;

  test('a new condition gets both times and no observedGeneration', () => {
    const [c] = setGardenerCondition(undefined, created, t0);
    assert.deepEqual(c, { ...created, lastTransitionTime: t0.toISOString(), lastUpdateTime: t0.toISOString() });
  });

  test('unchanged: both times stay, so an unchanged reconcile writes the same condition', () => {
    const list = setGardenerCondition(undefined, created, t0);
    assert.deepEqual(setGardenerCondition(list, created, t1), list);
  });

  test('a new message moves lastUpdateTime only; a new status moves lastTransitionTime only', () => {
    const list = setGardenerCondition(undefined, created, t0);
    const [msg] = setGardenerCondition(list, { ...created, message: 'other' }, t1);
    assert.equal(msg?.lastTransitionTime, t0.toISOString());
    assert.equal(msg?.lastUpdateTime, t1.toISOString());
    const [st] = setGardenerCondition(list, { ...created, status: 'False' }, t1);
    assert.equal(st?.lastTransitionTime, t1.toISOString());
    assert.equal(st?.lastUpdateTime, t0.toISOString());
  });
});
