import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Change } from '@aws-sdk/client-route-53';
import { changeCost, orderChanges, packBatches } from './batch.ts';
import type { ChangeGroup } from './batch.ts';

const change = (action: 'CREATE' | 'UPSERT' | 'DELETE', name: string, values: string[]): Change => ({
  Action: action,
  ResourceRecordSet: { Name: name, Type: 'TXT', TTL: 300, ResourceRecords: values.map((Value) => ({ Value })) },
});
const group = (key: string, changes: Change[]): ChangeGroup => ({ key, changes, records: [key] });

describe('packing changes into Route53 requests', () => {
  test('UPSERT counts twice for values and characters', () => {
    assert.deepEqual(changeCost(change('CREATE', 'a.', ['"abc"'])), { changes: 1, bytes: 5, values: 1 });
    assert.deepEqual(changeCost(change('UPSERT', 'a.', ['"abc"', '"d"'])), { changes: 1, bytes: 16, values: 4 });
    assert.deepEqual(
      changeCost({
        Action: 'CREATE',
        ResourceRecordSet: { Name: 'a.', Type: 'A', AliasTarget: { HostedZoneId: 'Z', DNSName: 'b.', EvaluateTargetHealth: true } },
      }),
      { changes: 1, bytes: 0, values: 1 },
    );
  });

  test('every limit starts a new batch; groups never straddle two', () => {
    const groups = Array.from({ length: 7 }, (_, i) => group(`g${i}`, [change('CREATE', `r${i}.`, ['"0123456789"']), change('CREATE', `t${i}.`, ['"x"'])]));
    const byChanges = packBatches(groups, { changes: 5, bytes: 1e6, values: 1e6 });
    assert.deepEqual(
      byChanges.map((b) => b.length),
      [2, 2, 2, 1],
    );
    const byBytes = packBatches(groups, { changes: 1000, bytes: 45, values: 1e6 });
    assert.deepEqual(
      byBytes.map((b) => b.length),
      [3, 3, 1],
    );
    const upserts = groups.map((g) => ({ ...g, changes: g.changes.map((c) => ({ ...c, Action: 'UPSERT' as const })) }));
    assert.deepEqual(
      packBatches(upserts, { changes: 1000, bytes: 1e6, values: 8 }).map((b) => b.length),
      [2, 2, 2, 1],
    );
  });

  test('a group over the limits goes alone rather than being split', () => {
    const big = group('big', [change('CREATE', 'a.', ['"1"']), change('CREATE', 'b.', ['"2"']), change('CREATE', 'c.', ['"3"'])]);
    assert.deepEqual(
      packBatches([group('s', [change('CREATE', 's.', ['"s"'])]), big], { changes: 2, bytes: 1e6, values: 1e6 }).map((b) => b.map((g) => g.key)),
      [['s'], ['big']],
    );
  });

  test('deletes go first, then upserts, then creates', () => {
    const ordered = orderChanges([change('CREATE', 'c.', ['"c"']), change('UPSERT', 'u.', ['"u"']), change('DELETE', 'd.', ['"d"'])]);
    assert.deepEqual(
      ordered.map((c) => c.Action),
      ['DELETE', 'UPSERT', 'CREATE'],
    );
  });
});
