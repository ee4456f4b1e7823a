/**
 * The test API server driven by the real kubectl: discovery, OpenAPI, Tables, watches, patches,
 * CRDs and deletion with finalizers all have to be right enough for kubectl to work. Skipped when
 * kubectl is not installed.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestApiServer } from '../support/kube-apiserver/server.ts';
import type { TestApiServer } from '../support/kube-apiserver/server.ts';
import { findKubectl, kubectlRunner } from '../support/kubectl.ts';

const KUBECTL = findKubectl();

const SERVICE = `apiVersion: v1
kind: Service
metadata:
  name: web
  annotations:
    external-dns.alpha.kubernetes.io/hostname: web.example.org
spec:
  type: LoadBalancer
  ports:
  - port: 80
`;

const CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: dnsendpoints.externaldns.k8s.io
spec:
  group: externaldns.k8s.io
  scope: Namespaced
  names: {kind: DNSEndpoint, listKind: DNSEndpointList, plural: dnsendpoints, singular: dnsendpoint}
  versions:
  - name: v1alpha1
    served: true
    storage: true
    subresources: {status: {}}
    schema:
      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
`;

const DNS_ENDPOINT = `apiVersion: externaldns.k8s.io/v1alpha1
kind: DNSEndpoint
metadata:
  name: ep1
spec:
  endpoints:
  - {dnsName: a.example.org, recordType: A, targets: [192.0.2.1]}
`;

describe('test API server driven by kubectl', { skip: KUBECTL === undefined ? 'kubectl not installed' : false }, () => {
  let api: TestApiServer;
  let dir: string;
  let base: string[];

  const { run, ok } = kubectlRunner(KUBECTL ?? 'kubectl', () => base);

  before(async () => {
    api = await startTestApiServer();
    dir = await mkdtemp(join(tmpdir(), 'hw-kubectl-'));
    const kubeconfig = await api.writeKubeconfig(dir);
    // A private discovery cache: kubectl would otherwise share ~/.kube/cache between test runs.
    base = ['--kubeconfig', kubeconfig, '--cache-dir', join(dir, 'cache'), '--request-timeout', '20s'];
  });
  after(async () => {
    await api.stop();
    await rm(dir, { recursive: true, force: true });
  });

  test('version reports the server', async () => {
    assert.match(await ok(['version']), /Server Version: v1\.32\./);
  });

  test('create -f, get, get -o json, patch (strategic, merge, json), delete', async () => {
    assert.match(await ok(['create', '-f', '-'], SERVICE), /service\/web created/);
    assert.match(await ok(['get', 'services']), /^NAME\s+AGE\nweb\s+\d+s\n$/);
    const json = JSON.parse(await ok(['get', 'svc', 'web', '-o', 'json'])) as { kind: string; metadata: { annotations: Record<string, string> } };
    assert.equal(json.kind, 'Service');
    assert.equal(json.metadata.annotations['external-dns.alpha.kubernetes.io/hostname'], 'web.example.org');
    const again = await run(['create', '-f', '-'], SERVICE);
    assert.notEqual(again.code, 0);
    assert.match(again.stderr, /AlreadyExists|already exists/);

    await ok(['patch', 'svc', 'web', '-p', '{"metadata":{"labels":{"a":"b"}}}']);
    await ok(['patch', 'svc', 'web', '--type=merge', '-p', '{"spec":{"ports":[{"port":81}]}}']);
    await ok(['patch', 'svc', 'web', '--type=json', '-p', '[{"op":"add","path":"/metadata/labels/c","value":"d"}]']);
    const got = await ok(['get', 'svc', 'web', '-o', 'jsonpath={.metadata.labels.a}{.metadata.labels.c} {.spec.ports[0].port} {.metadata.generation}']);
    assert.equal(got, 'bd 81 2');
    assert.equal(api.get({ apiVersion: 'v1', kind: 'Service', name: 'web', namespace: 'default' })?.metadata.labels?.c, 'd');

    assert.match(await ok(['delete', 'svc', 'web']), /service "web" deleted/);
    assert.match((await run(['get', 'svc', 'web'])).stderr, /NotFound|not found/);
  });

  test('get -w streams changes', async () => {
    // `kubectl create configmap` would send protobuf, which the test server does not decode.
    await ok(['create', '-f', '-'], 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: watched}\ndata: {k: v}\n');
    const watcher = run(['get', 'configmaps', '-w', '--output-watch-events'], undefined, 30_000, (out) => /DELETED\s+watched/.test(out));
    // Give kubectl time to list and open its watch; the change below must arrive over the watch.
    for (let i = 0; i < 400 && api.openWatches() === 0; i++) await new Promise((r) => setTimeout(r, 50));
    assert.ok(api.openWatches() > 0, 'kubectl opened a watch');
    await ok(['patch', 'configmap', 'watched', '--type=merge', '-p', '{"data":{"k":"w"}}']);
    await ok(['delete', 'configmap', 'watched']);
    const r = await watcher;
    assert.match(r.stdout, /ADDED\s+watched/);
    assert.match(r.stdout, /MODIFIED\s+watched/);
    assert.match(r.stdout, /DELETED\s+watched/);
  });

  test('a CRD and its objects: create, get, delete with a finalizer, wait --for=delete', async () => {
    await ok(['create', '-f', '-'], CRD);
    await ok(['wait', '--for=condition=established', 'crd/dnsendpoints.externaldns.k8s.io', '--timeout=10s']);
    assert.match(await ok(['create', '-f', '-'], DNS_ENDPOINT), /dnsendpoint.externaldns.k8s.io\/ep1 created/);
    assert.match(await ok(['get', 'dnsendpoints']), /ep1/);
    assert.equal(await ok(['get', 'dnsendpoint', 'ep1', '-o', 'jsonpath={.spec.endpoints[0].dnsName}']), 'a.example.org');

    await ok(['patch', 'dnsendpoint', 'ep1', '--type=merge', '-p', '{"metadata":{"finalizers":["hostwarden.io/cleanup"]}}']);
    await ok(['delete', 'dnsendpoint', 'ep1', '--wait=false']);
    assert.notEqual(await ok(['get', 'dnsendpoint', 'ep1', '-o', 'jsonpath={.metadata.deletionTimestamp}']), '');
    const waiter = run(['wait', '--for=delete', 'dnsendpoint/ep1', '--timeout=15s']);
    await ok(['patch', 'dnsendpoint', 'ep1', '--type=json', '-p', '[{"op":"remove","path":"/metadata/finalizers"}]']);
    const waited = await waiter;
    assert.equal(waited.code, 0, waited.stderr);
    assert.equal(api.get({ apiVersion: 'externaldns.k8s.io/v1alpha1', kind: 'DNSEndpoint', name: 'ep1', namespace: 'default' }), undefined);

    await ok(['delete', 'crd', 'dnsendpoints.externaldns.k8s.io']);
  });

  test('apply (client-side and server-side) and api-resources', async () => {
    assert.match(await ok(['apply', '-f', '-'], SERVICE), /service\/web created/);
    assert.match(await ok(['apply', '--server-side', '-f', '-'], SERVICE), /service\/web serverside-applied/);
    const resources = await ok(['api-resources']);
    assert.match(resources, /^leases\s+coordination\.k8s\.io\/v1\s+true\s+Lease$/m);
  });
});
