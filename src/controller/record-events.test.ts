import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { newEndpoint } from '../endpoint/endpoint.ts';
import type { Endpoint } from '../endpoint/endpoint.ts';
import type { SyncReport } from './controller.ts';
import type { Decision } from '../plan/plan.ts';
import { emptyChanges } from '../plan/changes.ts';
import type { Changes } from '../plan/changes.ts';
import { microTime } from '../kube/events.ts';
import { RecordEventReporter, involvedObjectOf } from './record-events.ts';

const ep = (name: string, target: string, resource: string, owner?: string): Endpoint =>
  newEndpoint({ dnsName: name, targets: [target], recordType: 'A', labels: owner === undefined ? { resource } : { resource, owner } });

function report(desired: Endpoint[], current: Endpoint[], changes: Changes = emptyChanges(), decisions: Decision[] = []): SyncReport {
  return { desired, current, changes, applied: true, ownerId: 'me', explain: () => decisions };
}

describe('RecordEventReporter', () => {
  const setup = (): { reporter: RecordEventReporter; written: string[] } => {
    const written: string[] = [];
    const reporter = new RecordEventReporter({
      recorder: { record: (obj, type, reason, note) => void written.push(`${obj.kind}/${obj.name} ${type} ${reason}: ${note}`) },
      enabled: new Set(['RecordReady', 'RecordDeleted', 'RecordError']),
    });
    return { reporter, written };
  };

  test('a created record is Ready once; a steady state writes nothing; new targets are Ready again', () => {
    const { reporter, written } = setup();
    const want = ep('www.example.org', '192.0.2.1', 'service/default/web');
    reporter.onSynced(report([want], [], { ...emptyChanges(), create: [want] }));
    assert.deepEqual(written, ['Service/web Normal RecordReady: A www.example.org → 192.0.2.1']);
    for (let i = 0; i < 3; i++) reporter.onSynced(report([want], [ep('www.example.org', '192.0.2.1', 'service/default/web', 'me')]));
    assert.equal(written.length, 1);
    const moved = ep('www.example.org', '192.0.2.2', 'service/default/web');
    reporter.onSynced(
      report([moved], [ep('www.example.org', '192.0.2.1', 'service/default/web', 'me')], { ...emptyChanges(), updateOld: [want], updateNew: [moved] }),
    );
    assert.equal(written.length, 2);
    assert.match(written[1] ?? '', /192\.0\.2\.2/);
  });

  test('a deleted record is reported on the object that had it', () => {
    const { reporter, written } = setup();
    const old = ep('old.example.org', '192.0.2.1', 'ingress/shop/front', 'me');
    reporter.onSynced(report([], [old], { ...emptyChanges(), delete: [old] }));
    assert.deepEqual(written, ['Ingress/front Normal RecordDeleted: A old.example.org deleted']);
  });

  test('a refused record is a Warning with the planner reason, written once', () => {
    const { reporter, written } = setup();
    const want = ep('shared.example.org', '192.0.2.9', 'crd/default/second');
    const theirs = ep('shared.example.org', '192.0.2.1', 'service/default/first', 'cluster-b');
    const decision: Decision = {
      dnsName: 'shared.example.org',
      recordType: 'A',
      setIdentifier: '',
      action: 'skip',
      reason: 'owned by another owner "cluster-b"',
      reasonCode: 'owned-by-other',
      resource: 'crd/default/second',
    };
    reporter.onSynced(report([want], [theirs], emptyChanges(), [decision]));
    reporter.onSynced(report([want], [theirs], emptyChanges(), [decision]));
    assert.deepEqual(written, ['DNSEndpoint/second Warning RecordError: A shared.example.org not published: owned by another owner "cluster-b"']);
  });

  test('resource labels map to the objects external-dns names them after', () => {
    assert.deepEqual(involvedObjectOf('service/ns/web'), { apiVersion: 'v1', kind: 'Service', namespace: 'ns', name: 'web' });
    assert.deepEqual(involvedObjectOf('httproute/ns/r'), { apiVersion: 'gateway.networking.k8s.io/v1', kind: 'HTTPRoute', namespace: 'ns', name: 'r' });
    assert.deepEqual(involvedObjectOf('grpcroute/ns/r'), { apiVersion: 'gateway.networking.k8s.io/v1', kind: 'GRPCRoute', namespace: 'ns', name: 'r' });
    assert.deepEqual(involvedObjectOf('f5-virtualserver/ns/vs'), { apiVersion: 'cis.f5.com/v1', kind: 'VirtualServer', namespace: 'ns', name: 'vs' });
    assert.deepEqual(involvedObjectOf('f5-transportserver/ns/ts'), { apiVersion: 'cis.f5.com/v1', kind: 'TransportServer', namespace: 'ns', name: 'ts' });
    assert.deepEqual(involvedObjectOf('tlsroute/ns/r'), { apiVersion: 'gateway.networking.k8s.io/v1', kind: 'TLSRoute', namespace: 'ns', name: 'r' });
    assert.deepEqual(involvedObjectOf('tcproute/ns/r'), { apiVersion: 'gateway.networking.k8s.io/v1alpha2', kind: 'TCPRoute', namespace: 'ns', name: 'r' });
    assert.deepEqual(involvedObjectOf('gateway/ns/g'), { apiVersion: 'networking.istio.io/v1', kind: 'Gateway', namespace: 'ns', name: 'g' });
    assert.deepEqual(involvedObjectOf('virtualservice/ns/v'), { apiVersion: 'networking.istio.io/v1', kind: 'VirtualService', namespace: 'ns', name: 'v' });
    assert.deepEqual(involvedObjectOf('udproute/ns/r'), { apiVersion: 'gateway.networking.k8s.io/v1alpha2', kind: 'UDPRoute', namespace: 'ns', name: 'r' });
    assert.deepEqual(involvedObjectOf('ingressroute/ns/r'), { apiVersion: 'traefik.io/v1alpha1', kind: 'IngressRoute', namespace: 'ns', name: 'r' });
    assert.deepEqual(involvedObjectOf('ingressroutetcp/ns/r'), { apiVersion: 'traefik.io/v1alpha1', kind: 'IngressRouteTCP', namespace: 'ns', name: 'r' });
    assert.deepEqual(involvedObjectOf('ingressrouteudp/ns/r'), { apiVersion: 'traefik.io/v1alpha1', kind: 'IngressRouteUDP', namespace: 'ns', name: 'r' });
    assert.deepEqual(involvedObjectOf('host/ns/h'), { apiVersion: 'getambassador.io/v3alpha1', kind: 'Host', namespace: 'ns', name: 'h' });
    assert.deepEqual(involvedObjectOf('tcpingress/ns/t'), { apiVersion: 'configuration.konghq.com/v1beta1', kind: 'TCPIngress', namespace: 'ns', name: 't' });
    assert.deepEqual(involvedObjectOf('routegroup/ns/r'), { apiVersion: 'zalando.org/v1', kind: 'RouteGroup', namespace: 'ns', name: 'r' });
    // contour-httpproxy's label is upstream's, kind first as Contour spells it.
    assert.deepEqual(involvedObjectOf('HTTPProxy/ns/p'), { apiVersion: 'projectcontour.io/v1', kind: 'HTTPProxy', namespace: 'ns', name: 'p' });
    assert.deepEqual(involvedObjectOf('proxy/gloo-system/gateway-proxy'), {
      apiVersion: 'gloo.solo.io/v1',
      kind: 'Proxy',
      namespace: 'gloo-system',
      name: 'gateway-proxy',
    });
    assert.equal(involvedObjectOf('manifest'), undefined);
    // Nodes are cluster-scoped: their label has no namespace.
    assert.deepEqual(involvedObjectOf('node/worker-1.example.org'), { apiVersion: 'v1', kind: 'Node', namespace: '', name: 'worker-1.example.org' });
    assert.equal(involvedObjectOf('node/'), undefined);
  });

  test('event times are MicroTime', () => {
    assert.equal(microTime(new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 678))), '2026-01-02T03:04:05.678000Z');
  });
});

describe('RecordEventReporter across many syncs', () => {
  const setup = (): { reporter: RecordEventReporter; written: string[] } => {
    const written: string[] = [];
    const reporter = new RecordEventReporter({
      recorder: { record: (obj, type, reason, note) => void written.push(`${obj.kind}/${obj.name} ${type} ${reason}: ${note}`) },
      enabled: new Set(['RecordReady', 'RecordDeleted', 'RecordError']),
    });
    return { reporter, written };
  };
  const fleet = (n: number, changedTarget?: string): Endpoint[] =>
    Array.from({ length: n }, (_, i) =>
      ep(`web${String(i)}.example.org`, i === 7 && changedTarget !== undefined ? changedTarget : '192.0.2.1', `service/default/web${String(i)}`),
    );
  const owned = (eps: readonly Endpoint[]): Endpoint[] => eps.map((e) => ({ ...e, targets: [...e.targets], labels: { ...e.labels, owner: 'me' } }));
  // Fresh copies each sync, as the sources and the records cache hand them out.
  const copies = (eps: readonly Endpoint[]): Endpoint[] => eps.map((e) => ({ ...e, targets: [...e.targets], labels: { ...e.labels } }));

  test('a steady state writes nothing and asks for no explanation over many syncs', () => {
    const { reporter, written } = setup();
    const want = fleet(50);
    reporter.onSynced(report(copies(want), owned(want)));
    assert.equal(written.length, 50);
    let explained = 0;
    for (let i = 0; i < 20; i++) {
      reporter.onSynced({ ...report(copies(want), owned(want)), explain: () => (explained++, []) });
    }
    assert.equal(written.length, 50);
    assert.equal(explained, 0);
  });

  test('one object changing writes only its event', () => {
    const { reporter, written } = setup();
    const want = fleet(50);
    reporter.onSynced(report(copies(want), owned(want)));
    written.length = 0;
    const moved = fleet(50, '192.0.2.7');
    const changed = moved[7] as Endpoint;
    reporter.onSynced(report(copies(moved), owned(want), { ...emptyChanges(), updateOld: owned([want[7] as Endpoint]), updateNew: [changed] }));
    assert.deepEqual(written, ['Service/web7 Normal RecordReady: A web7.example.org → 192.0.2.7']);
    reporter.onSynced(report(copies(moved), owned(moved)));
    reporter.onSynced(report(copies(moved), owned(moved)));
    assert.equal(written.length, 1);
  });

  test('a refusal is a Warning when it appears and Ready once it is resolved', () => {
    const { reporter, written } = setup();
    const want = ep('shared.example.org', '192.0.2.9', 'service/default/second');
    const theirs = ep('shared.example.org', '192.0.2.1', 'service/default/first', 'cluster-b');
    const refused: Decision = {
      dnsName: 'shared.example.org',
      recordType: 'A',
      setIdentifier: '',
      action: 'skip',
      reason: 'owned by another owner "cluster-b"',
      reasonCode: 'owned-by-other',
      resource: 'service/default/second',
    };
    const others = fleet(10);
    reporter.onSynced(report(copies(others), owned(others)));
    written.length = 0;
    reporter.onSynced(report([...copies(others), want], [...owned(others), theirs], emptyChanges(), [refused]));
    reporter.onSynced(report([...copies(others), want], [...owned(others), theirs], emptyChanges(), [refused]));
    assert.deepEqual(written, ['Service/second Warning RecordError: A shared.example.org not published: owned by another owner "cluster-b"']);
    // The other cluster lets the name go: the record is created and the object hears it is Ready.
    reporter.onSynced(report([...copies(others), want], owned(others), { ...emptyChanges(), create: [want] }));
    reporter.onSynced(report([...copies(others), want], [...owned(others), ...owned([want])]));
    assert.deepEqual(written.slice(1), ['Service/second Normal RecordReady: A shared.example.org → 192.0.2.9']);
  });

  test('a deleted record is reported once on the object that had it', () => {
    const { reporter, written } = setup();
    const want = fleet(10);
    reporter.onSynced(report(copies(want), owned(want)));
    written.length = 0;
    const left = want.filter((_, i) => i !== 3);
    reporter.onSynced(report(copies(left), owned(want), { ...emptyChanges(), delete: owned([want[3] as Endpoint]) }));
    for (let i = 0; i < 5; i++) reporter.onSynced(report(copies(left), owned(left)));
    assert.deepEqual(written, ['Service/web3 Normal RecordDeleted: A web3.example.org deleted']);
  });
});
