/**
 * The unstructured source through the real client, discovery and reflectors against the test API
 * server: a custom resource (KubeVirt's VirtualMachineInstance, served once its CRD exists) and a
 * built-in one (ConfigMaps, whose list items carry no kind: discovery supplies it).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeResource } from '../../src/kube/resource.ts';
import { unstructuredSourceFromConfig } from '../../src/source/kube/factory.ts';
import { unstructuredSource } from '../../src/source/kube/unstructured.ts';
import type { UnstructuredSource } from '../../src/source/kube/unstructured.ts';
import type { SourceProblem } from '../../src/source/source.ts';
import { FqdnTemplate } from '../../src/source/translate/fqdn-template.ts';
import type { TranslateOptions } from '../../src/source/translate/options.ts';
import { waitFor } from './harness.ts';
import { configFromFlags, until as untilRead, useTestApiServer, viewOf } from './source-harness.ts';

/** KubeVirt's VirtualMachineInstance CRD, reduced to what the test writes (status is open, as KubeVirt's). */
const VMI_CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'virtualmachineinstances.kubevirt.io' },
  spec: {
    group: 'kubevirt.io',
    scope: 'Namespaced',
    names: { plural: 'virtualmachineinstances', singular: 'virtualmachineinstance', kind: 'VirtualMachineInstance', listKind: 'VirtualMachineInstanceList' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
      },
    ],
  },
};
const VMIS: KubeResource = { apiVersion: 'kubevirt.io/v1', kind: 'VirtualMachineInstance', plural: 'virtualmachineinstances', namespaced: true };
const CONFIGMAPS: KubeResource = { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespaced: true };

const vmi = (
  name: string,
  ip: unknown,
  annotations: Record<string, string> = {},
): Record<string, unknown> & { metadata: { name: string; namespace: string; annotations: Record<string, string> } } => ({
  metadata: { name, namespace: 'vms', annotations },
  status: { interfaces: [{ name: 'default', ipAddress: ip }] },
});

describe('unstructured source against the test API server', () => {
  const suite = useTestApiServer({ namespaces: ['vms', 'dns'] });

  // Before its CRD exists a source's endpoints() fails: read as no endpoints until then.
  const until = (what: string, source: UnstructuredSource, expected: string[]): Promise<void> =>
    untilRead(what, () => viewOf(source, { resource: true }).catch(() => []), expected);

  const open = (resources: string[], options: TranslateOptions, problems: SourceProblem[] = []): UnstructuredSource => {
    const source = unstructuredSource(suite.sourceDeps({ translateOptions: options, onProblem: (p) => problems.push(p) }), resources);
    suite.closeAfter(() => source.close());
    return source;
  };

  const templates = (fqdn: string, target: string): TranslateOptions => ({ fqdnTemplate: FqdnTemplate.fromFlags({ fqdn: [fqdn], target: [target] }) });

  test('started before its CRD exists: syncs fail naming the resource, then it starts by itself once the CRD appears', async () => {
    const source = open(['virtualmachineinstances.v1.kubevirt.io'], templates('{{.Name}}.vm.example.org', '{{index .Status.interfaces 0 "ipAddress"}}'));
    let fired = 0;
    source.addEventHandler(() => fired++);
    await assert.rejects(source.endpoints(), /virtualmachineinstances.*not found in "kubevirt.io\/v1"|failed to discover resources for "kubevirt.io\/v1"/);
    suite.api.create(VMI_CRD);
    await suite.kube.create(VMIS, vmi('web', '10.0.0.1'));
    await until('the VMI once the CRD exists', source, ['web.vm.example.org A 10.0.0.1 virtualmachineinstance/vms/web']);
    await waitFor('event handler fired', () => (fired > 0 ? true : undefined));
  });

  test('create, update, rename and delete of custom resources follow; two objects asking for one name are merged', async () => {
    const source = open(['virtualmachineinstances.v1.kubevirt.io'], templates('{{.Name}}.vm.example.org', '{{index .Status.interfaces 0 "ipAddress"}}'));
    await suite.kube.create(VMIS, vmi('db', '10.0.0.2'));
    await until('created', source, [
      'db.vm.example.org A 10.0.0.2 virtualmachineinstance/vms/db',
      'web.vm.example.org A 10.0.0.1 virtualmachineinstance/vms/web',
    ]);
    await suite.kube.patch(VMIS, 'vms', 'db', { status: { interfaces: [{ name: 'default', ipAddress: '10.0.0.3' }] } });
    await until('updated', source, [
      'db.vm.example.org A 10.0.0.3 virtualmachineinstance/vms/db',
      'web.vm.example.org A 10.0.0.1 virtualmachineinstance/vms/web',
    ]);
    // A rename is a delete and a create.
    await suite.kube.delete(VMIS, 'vms', 'db');
    await suite.kube.create(VMIS, vmi('db2', '10.0.0.3'));
    await until('renamed', source, [
      'db2.vm.example.org A 10.0.0.3 virtualmachineinstance/vms/db2',
      'web.vm.example.org A 10.0.0.1 virtualmachineinstance/vms/web',
    ]);
    await suite.kube.delete(VMIS, 'vms', 'db2');
    await until('deleted', source, ['web.vm.example.org A 10.0.0.1 virtualmachineinstance/vms/web']);

    // Annotations only (no templates): both VMIs ask for one name, which gets both targets.
    const annotated = open(['virtualmachineinstances.v1.kubevirt.io'], {});
    const ask = { 'external-dns.kubernetes.io/hostname': 'pool.example.org' };
    await suite.kube.create(VMIS, vmi('pool-a', '10.0.1.1', { ...ask, 'external-dns.kubernetes.io/target': '10.0.1.1' }));
    await suite.kube.create(VMIS, vmi('pool-b', '10.0.1.2', { ...ask, 'external-dns.kubernetes.io/target': '10.0.1.2' }));
    const merged = await waitFor('merged', async () => {
      const eps = await annotated.endpoints();
      return eps.length === 1 && eps[0]?.targets.length === 2 ? eps : undefined;
    });
    assert.deepEqual([...(merged[0]?.targets ?? [])].sort(), ['10.0.1.1', '10.0.1.2']);
    await suite.kube.delete(VMIS, 'vms', 'pool-a');
    await suite.kube.delete(VMIS, 'vms', 'pool-b');
  });

  test('an object a template cannot read is reported and skipped; the others keep their records', async () => {
    const problems: SourceProblem[] = [];
    const source = open(
      ['virtualmachineinstances.v1.kubevirt.io'],
      templates('{{.Name}}.vm.example.org', '{{index .Status.interfaces 0 "ipAddress"}}'),
      problems,
    );
    // status.interfaces is a string: `index` fails on it.
    await suite.kube.create(VMIS, { metadata: { name: 'odd', namespace: 'vms' }, status: { interfaces: 'none' } });
    await until('the others', source, ['web.vm.example.org A 10.0.0.1 virtualmachineinstance/vms/web']);
    await waitFor('the problem', () => (problems.some((p) => p.message.includes('VirtualMachineInstance/vms/odd')) ? true : undefined));
    assert.ok(source.heldResources().has('virtualmachineinstance/vms/odd'), 'its records are held, not deleted');
    await suite.kube.delete(VMIS, 'vms', 'odd');
  });

  test('built from flags: ConfigMaps (core group, kind from discovery) beside the custom resource, --label-filter applies', async () => {
    await suite.kube.create(CONFIGMAPS, {
      metadata: { name: 'api-dns', namespace: 'dns', labels: { dns: 'yes' } },
      data: { hostname: 'api.example.org', target: '192.0.2.10' },
    });
    await suite.kube.create(CONFIGMAPS, { metadata: { name: 'other', namespace: 'dns' }, data: { hostname: 'other.example.org', target: '192.0.2.11' } });
    const cfg = configFromFlags([
      ...['--source', 'unstructured', '--unstructured-resource', 'configmaps.v1', '--unstructured-resource', 'virtualmachineinstances.v1.kubevirt.io'],
      ...['--fqdn-template', '{{if eq .Kind "ConfigMap"}}{{index .Object.data "hostname"}}{{else}}{{.Name}}.vm.example.org{{end}}'],
      ...['--target-template', '{{if eq .Kind "ConfigMap"}}{{index .Object.data "target"}}{{else}}{{index .Status.interfaces 0 "ipAddress"}}{{end}}'],
      ...['--label-filter', 'dns=yes', '--kubeconfig', suite.kubeconfig, '--request-timeout', '5s'],
    ]);
    const source = unstructuredSourceFromConfig(cfg, { logger: suite.logger });
    suite.closeAfter(() => source.close());
    await until('the labelled ConfigMap only', source, ['api.example.org A 192.0.2.10 configmap/dns/api-dns']);
    await suite.kube.patch(VMIS, 'vms', 'web', { metadata: { labels: { dns: 'yes' } } });
    await until('and the labelled VMI', source, [
      'api.example.org A 192.0.2.10 configmap/dns/api-dns',
      'web.vm.example.org A 10.0.0.1 virtualmachineinstance/vms/web',
    ]);
  });

  test('an invalid --unstructured-resource stops start-up naming the flag', () => {
    assert.throws(
      () => open(['justname'], {}),
      (err: Error) => err.message.includes('--unstructured-resource') && err.message.includes('"justname"'),
    );
  });
});
