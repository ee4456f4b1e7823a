import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { operationType, shouldSkipOperation } from './status.ts';
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
    ['deletion wins over the restore annotation', { annotation: 'restore', deleting: true }, 'Delete'],
    ['unfinished Migrate stays Migrate', { last: { type: 'Migrate', state: 'Error' } }, 'Migrate'],
    ['restore annotation', { annotation: 'restore', last: { type: 'Migrate', state: 'Succeeded' } }, 'Restore'],
    ['unfinished Create stays Create', { last: { type: 'Create', state: 'Error' } }, 'Create'],
    ['unfinished Restore stays Restore', { last: { type: 'Restore', state: 'Error' } }, 'Restore'],
    ['after a successful Create', { last: { type: 'Create', state: 'Succeeded' } }, 'Reconcile'],
    ['reconcile annotation', { annotation: 'reconcile', last: { type: 'Reconcile', state: 'Error' } }, 'Reconcile'],
  ];
  for (const [title, input, want] of cases) test(title, () => assert.equal(operationType(rec(input)), want));
});

test('ShouldSkipOperation: a migrated record is skipped by all but Migrate and Restore', () => {
  const migrated = rec({ last: { type: 'Migrate', state: 'Succeeded' } });
  assert.equal(shouldSkipOperation('Reconcile', migrated), true);
  assert.equal(shouldSkipOperation('Delete', migrated), true);
  assert.equal(shouldSkipOperation('Restore', migrated), false);
  assert.equal(shouldSkipOperation('Reconcile', rec({ last: { type: 'Migrate', state: 'Error' } })), false);
});
