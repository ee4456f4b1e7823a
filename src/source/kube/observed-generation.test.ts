import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WARN, capturingLogger } from '../../../test/support/log-capture.ts';
import { KubeApiError } from '../../kube/errors.ts';
import { customResource } from '../../kube/resource.ts';
import type { KubeObject } from '../../kube/resource.ts';
import { ObservedGenerationWriter } from './sources.ts';

test('without permission on dnsendpoints/status: one warning per namespace, no request per sync', async () => {
  const { logger, lines } = capturingLogger();
  let requests = 0;
  const client = {
    request: async () => {
      requests++;
      throw new KubeApiError('dnsendpoints.externaldns.k8s.io "a" is forbidden', 403, 'Forbidden');
    },
  };
  const writer = new ObservedGenerationWriter(client as never, customResource('externaldns.k8s.io/v1alpha1', 'DNSEndpoint'), logger);
  const objects = ['a', 'b', 'c'].map(
    (name) => ({ apiVersion: 'externaldns.k8s.io/v1alpha1', kind: 'DNSEndpoint', metadata: { name, namespace: 'default', generation: 1 } }) as KubeObject,
  );
  writer.write(objects);
  await new Promise((r) => setTimeout(r, 20));
  const first = requests;
  for (let i = 0; i < 5; i++) {
    writer.write(objects);
    await new Promise((r) => setTimeout(r, 5));
  }
  assert.equal(requests, first, 'later syncs ask nothing in the namespace');
  const warnings = lines.filter((l) => l.level === WARN);
  assert.equal(warnings.length, 1);
  assert.deepEqual([warnings[0]?.['verb'], warnings[0]?.['resource'], warnings[0]?.['namespace']], ['patch', 'dnsendpoints/status', 'default']);
});
