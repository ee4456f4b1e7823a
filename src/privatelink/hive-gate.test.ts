import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { hiveGate } from './hive-gate.ts';
import type { HiveConfig } from './types.ts';

const config = (status: unknown, disabledControllers?: string[]): HiveConfig =>
  ({
    metadata: { name: 'hive' },
    spec: { ...(disabledControllers === undefined ? {} : { disabledControllers }) },
    ...(status === undefined ? {} : { status }),
  }) as HiveConfig;
const managed = { observedGeneration: 1, conditions: [{ type: 'Ready', status: 'True' }] };

describe('hiveGate', () => {
  test('no HiveConfig, or one hive-operator never wrote status for: work alone', () => {
    assert.deepEqual(hiveGate(undefined), { hive: 'absent', conflict: false });
    assert.deepEqual(hiveGate(config(undefined)), { hive: 'unmanaged', conflict: false });
    assert.deepEqual(hiveGate(config({})), { hive: 'unmanaged', conflict: false });
  });

  test('Hive installed (either field hive-operator writes) without awsprivatelink disabled: conflict naming the fix', () => {
    for (const status of [managed, { observedGeneration: 3 }, { conditions: [{ type: 'Ready', status: 'Unknown' }] }]) {
      const gate = hiveGate(config(status, ['clustersync']));
      assert.equal(gate.conflict, true);
      assert.match(gate.conflict ? gate.message : '', /spec\.disabledControllers.*merge patch replaces the whole list/);
    }
  });

  test('Hive installed with awsprivatelink in spec.disabledControllers (exact name): work', () => {
    assert.deepEqual(hiveGate(config(managed, ['machinepool', 'awsprivatelink'])), { hive: 'installed', conflict: false });
    assert.equal(hiveGate(config(managed, ['AWSPrivateLink'])).conflict, true, 'Hive compares names exactly');
    assert.equal(hiveGate(config(managed, ['privatelink'])).conflict, true, "the generic privatelink controller is GCP's");
  });
});
