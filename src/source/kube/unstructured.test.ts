import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError } from '../../errors.ts';
import { discoverResource, parseResourceArg, parseResourceArgs } from './unstructured.ts';
import type { DiscoveryClient } from './unstructured.ts';

test('parseResourceArg: resource.version.group, the core group as resource.version', () => {
  assert.deepEqual(parseResourceArg('certificates.v1.cert-manager.io'), {
    arg: 'certificates.v1.cert-manager.io',
    resource: 'certificates',
    version: 'v1',
    group: 'cert-manager.io',
  });
  assert.deepEqual(parseResourceArg('configmaps.v1'), { arg: 'configmaps.v1', resource: 'configmaps', version: 'v1', group: '' });
  assert.deepEqual(parseResourceArg('configmaps.v1.'), { arg: 'configmaps.v1.', resource: 'configmaps', version: 'v1', group: '' });
});

test('parseResourceArg: malformed values are a ConfigError naming the flag and the value', () => {
  for (const bad of ['justname', 'Pods.v1', '.v1.example.com', 'pods..example.com', 'pods.v1.Example.com']) {
    assert.throws(
      () => parseResourceArg(bad),
      (err: unknown) =>
        err instanceof ConfigError &&
        err.message.startsWith('--unstructured-resource: invalid resource identifier') &&
        err.message.includes(JSON.stringify(bad)),
      bad,
    );
  }
});

test('parseResourceArgs: repeats dropped, none is an error', () => {
  assert.equal(parseResourceArgs(['configmaps.v1', 'configmaps.v1.', 'pods.v1']).length, 2);
  assert.throws(() => parseResourceArgs([]), /needs at least one --unstructured-resource/);
});

const discovery = (answers: Record<string, unknown>): DiscoveryClient & { asked: string[] } => {
  const asked: string[] = [];
  return {
    asked,
    request<T>(_method: string, path: string): Promise<T> {
      asked.push(path);
      const a = answers[path];
      return a === undefined ? Promise.reject(new Error(`GET ${path}: 404 Not Found`)) : Promise.resolve(a as T);
    },
  };
};

test('discoverResource: kind and scope from the API server; plural, singular name or lower-cased kind', async () => {
  const client = discovery({
    '/api/v1': { resources: [{ name: 'configmaps', singularName: 'configmap', namespaced: true, kind: 'ConfigMap' }] },
    '/apis/example.com/v1': {
      resources: [
        { name: 'widgets/status', singularName: '', namespaced: false, kind: 'Widget' },
        { name: 'widgets', singularName: '', namespaced: false, kind: 'Widget' },
      ],
    },
  });
  assert.deepEqual(await discoverResource(client, parseResourceArg('configmaps.v1')), {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    plural: 'configmaps',
    namespaced: true,
  });
  assert.deepEqual(await discoverResource(client, parseResourceArg('configmap.v1')), {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    plural: 'configmaps',
    namespaced: true,
  });
  assert.deepEqual(await discoverResource(client, parseResourceArg('widget.v1.example.com')), {
    apiVersion: 'example.com/v1',
    kind: 'Widget',
    plural: 'widgets',
    namespaced: false,
  });
  assert.deepEqual(client.asked, ['/api/v1', '/api/v1', '/apis/example.com/v1']);
});

test('discoverResource: an unknown group/version or resource is a transient error naming it', async () => {
  const client = discovery({ '/apis/kubevirt.io/v1': { resources: [{ name: 'virtualmachineinstances', namespaced: true, kind: 'VirtualMachineInstance' }] } });
  await assert.rejects(discoverResource(client, parseResourceArg('rdsinstances.v1alpha1.rds.aws.crossplane.io')), (err: Error & { transient?: boolean }) => {
    assert.match(err.message, /failed to discover resources for "rds.aws.crossplane.io\/v1alpha1" \(rdsinstances.v1alpha1.rds.aws.crossplane.io\)/);
    return true;
  });
  await assert.rejects(discoverResource(client, parseResourceArg('nonexistent.v1.kubevirt.io')), /resource "nonexistent" not found in "kubevirt.io\/v1"/);
});
