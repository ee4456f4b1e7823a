/**
 * charts/hostwarden rendered with default and non-default values (test renderer, no helm binary):
 * the values match values.schema.json, and every rendering keeps the invariants the plain
 * manifests keep — locked-down pod, valid flags, probes, and RBAC that is exactly what the chosen
 * sources need.
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderChart } from './chart.ts';
import type { RenderedChart } from './chart.ts';
import { checkShapes, checkWorkload, get, grantsOf, ofKind } from './checks.ts';
import type { Obj } from './checks.ts';
import { expectedGrants, permissionKey, requiredPermissions } from './rbac-required.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
const CHART = join(ROOT, 'charts/hostwarden');
const RELEASE = { name: 'dns', namespace: 'infra' };

type Values = Record<string, unknown>;

function render(values: Values): RenderedChart {
  return renderChart(CHART, values, RELEASE);
}

function deploymentArgs(objs: readonly Obj[]): string[] {
  return get(ofKind(objs, 'Deployment')[0], 'spec', 'template', 'spec', 'containers', 0, 'args') as string[];
}

const sorted = (s: Set<string>): string[] => [...s].sort();

interface Case {
  name: string;
  values: Values;
  /** Extra expectations for this case. */
  expect?: (r: RenderedChart) => void;
}

const CASES: readonly Case[] = [
  {
    name: 'defaults',
    values: {},
    expect: (r) => {
      assert.equal(ofKind(r.objects, 'ServiceMonitor').length, 0);
      assert.equal(ofKind(r.objects, 'PersistentVolumeClaim').length, 0);
      assert.ok(deploymentArgs(r.objects).includes('--dns-listen=:5353'));
      assert.ok(deploymentArgs(r.objects).includes('--leader-elect=true'));
      assert.match(r.notes, /dns-hostwarden-dns\.infra/);
    },
  },
  {
    // Only Nodes are read: list/watch on nodes and nothing for the other sources.
    name: 'the node source alone',
    values: { sources: ['node'] },
    expect: (r) => assert.ok(deploymentArgs(r.objects).includes('--source=node')),
  },
  {
    // Hosts, and the Services their annotation names.
    name: 'the ambassador-host source alone',
    values: { sources: ['ambassador-host'] },
    expect: (r) => assert.ok(deploymentArgs(r.objects).includes('--source=ambassador-host')),
  },
  {
    name: 'every source, another provider, credentials, extra args and scheduling',
    values: {
      provider: 'inmemory',
      sources: [
        'service',
        'ingress',
        'crd',
        'gateway-httproute',
        'openshift-route',
        'pod',
        'gateway-grpcroute',
        'gateway-tlsroute',
        'gateway-tcproute',
        'gateway-udproute',
        'f5-virtualserver',
        'f5-transportserver',
        'istio-gateway',
        'istio-virtualservice',
        'traefik-proxy',
        'ambassador-host',
        'kong-tcpingress',
        'skipper-routegroup',
      ],
      enableGatewayListenerSets: true,
      eventsEmit: ['RecordReady', 'RecordError'],
      txtOwnerId: 'cluster-a',
      txtPrefix: '%{record_type}-',
      domainFilters: ['example.org', 'example.net'],
      excludeDomains: ['internal.example.org'],
      managedRecordTypes: ['A', 'AAAA', 'CNAME', 'TXT'],
      policy: 'sync',
      interval: '30s',
      credentials: { secretName: 'dns-credentials' },
      env: [{ name: 'EXTERNAL_DNS_TXT_CACHE_INTERVAL', value: '1m' }],
      extraArgs: ['--min-event-sync-interval=1s', '--exclude-record-types=MX'],
      nodeSelector: { 'kubernetes.io/os': 'linux' },
      tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'dns', effect: 'NoSchedule' }],
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] }] },
        },
      },
      podAnnotations: { 'example.org/team': 'dns' },
      image: { repository: 'registry.example/hostwarden', tag: '1.2.3', pullPolicy: 'Always' },
      serviceMonitor: { enabled: true, labels: { release: 'prometheus' } },
    },
    expect: (r) => {
      const args = deploymentArgs(r.objects);
      for (const a of [
        '--provider=inmemory',
        '--txt-prefix=%{record_type}-',
        '--domain-filter=example.net',
        '--source=gateway-httproute',
        '--gateway-listener-sets',
        '--min-event-sync-interval=1s',
      ]) {
        assert.ok(args.includes(a), `${a} missing from ${args.join(' ')}`);
      }
      assert.ok(!args.some((a) => a.startsWith('--embedded') || a.startsWith('--dns-')), 'embedded flags without the embedded provider');
      const pod = get(ofKind(r.objects, 'Deployment')[0], 'spec', 'template', 'spec');
      assert.equal(get(pod, 'containers', 0, 'envFrom', 0, 'secretRef', 'name'), 'dns-credentials');
      assert.equal(get(pod, 'containers', 0, 'image'), 'registry.example/hostwarden:1.2.3');
      assert.equal(get(pod, 'tolerations', 0, 'key'), 'dedicated');
      assert.equal(get(pod, 'nodeSelector', 'kubernetes.io/os'), 'linux');
      assert.ok(get(pod, 'affinity', 'nodeAffinity') !== undefined);
      assert.deepEqual(
        ofKind(r.objects, 'Service').map((s) => get(s, 'metadata', 'name')),
        ['dns-hostwarden-metrics'],
        'no DNS Service without the embedded provider',
      );
      const sm = ofKind(r.objects, 'ServiceMonitor')[0];
      assert.equal(get(sm, 'metadata', 'labels', 'release'), 'prometheus');
      assert.equal(get(sm, 'spec', 'endpoints', 0, 'port'), 'metrics');
      const metricsSvc = ofKind(r.objects, 'Service')[0];
      for (const [k, v] of Object.entries(get(sm, 'spec', 'selector', 'matchLabels') as Values))
        assert.equal(get(metricsSvc, 'metadata', 'labels', k), v, `ServiceMonitor selector ${k}`);
    },
  },
  {
    // Exact RBAC (checked for every case): virtualservers only, not transportservers.
    name: 'the f5-virtualserver source alone',
    values: { sources: ['f5-virtualserver'] },
    expect: (r) => assert.ok(deploymentArgs(r.objects).includes('--source=f5-virtualserver')),
  },
  {
    name: 'the f5-transportserver source alone',
    values: { sources: ['f5-transportserver'] },
  },
  {
    // Exact RBAC (checked for every case): HTTPProxies and nothing else a source reads.
    name: 'the contour-httpproxy source alone',
    values: { sources: ['contour-httpproxy'] },
  },
  {
    // Exact RBAC: Proxies, VirtualServices and Gateways, Services and Ingresses; nothing else.
    name: 'the gloo-proxy source alone',
    values: { sources: ['gloo-proxy'] },
  },
  {
    name: 'gloo-proxy with the service and ingress sources (their grants not repeated)',
    values: { sources: ['service', 'ingress', 'gloo-proxy'] },
  },
  {
    name: 'the pod source alone (Pods and Nodes, no Services)',
    values: { sources: ['pod'] },
  },
  {
    // Exact RBAC (checked for every case) then grants udproutes and what route sources share, nothing else.
    name: 'one Gateway API route source with ListenerSets',
    values: { sources: ['gateway-udproute'], enableGatewayListenerSets: true },
    expect: (r) => {
      const args = deploymentArgs(r.objects);
      assert.ok(args.includes('--source=gateway-udproute') && args.includes('--gateway-listener-sets'), args.join(' '));
    },
  },
  {
    // Exact RBAC (checked for every case): VirtualServices, Istio Gateways, Services and Ingresses, nothing else.
    name: 'the istio-virtualservice source alone',
    values: { sources: ['istio-virtualservice'] },
    expect: (r) => assert.ok(deploymentArgs(r.objects).includes('--source=istio-virtualservice')),
  },
  {
    // Both Traefik groups are granted (the legacy one is read with --traefik-enable-legacy).
    name: 'the traefik-proxy source alone',
    values: { sources: ['traefik-proxy'], extraArgs: ['--traefik-enable-legacy'] },
    expect: (r) => assert.ok(deploymentArgs(r.objects).includes('--source=traefik-proxy')),
  },
  {
    // Exact RBAC (checked for every case): list/watch on exactly the listed resources, nothing else.
    name: 'the unstructured source with a custom and a core resource',
    values: {
      sources: ['unstructured'],
      unstructured: {
        resources: [
          { resource: 'virtualmachineinstances', version: 'v1', group: 'kubevirt.io' },
          { resource: 'configmaps', version: 'v1' },
        ],
      },
    },
    expect: (r) => {
      const args = deploymentArgs(r.objects);
      assert.ok(args.includes('--unstructured-resource=virtualmachineinstances.v1.kubevirt.io'), args.join(' '));
      assert.ok(args.includes('--unstructured-resource=configmaps.v1.'), args.join(' '));
    },
  },
  {
    // Neither reads the cluster: exact RBAC is then only what every install has.
    name: 'the connector and fake sources (no Kubernetes permission)',
    values: { sources: ['connector', 'fake'], extraArgs: ['--connector-source-server=endpoints.dns.svc:8080'] },
  },
  {
    name: 'embedded with persistence, a LoadBalancer DNS Service and explicit zones',
    values: {
      sources: ['crd'],
      domainFilters: ['example.org'],
      embedded: { zones: ['example.org'], service: { type: 'LoadBalancer', annotations: { 'metallb.universe.tf/address-pool': 'dns' } } },
      persistence: { enabled: true, storageClass: 'fast', size: '2Gi' },
      replicaCount: 1,
      fullnameOverride: 'hw',
    },
    expect: (r) => {
      const pvc = ofKind(r.objects, 'PersistentVolumeClaim')[0];
      assert.equal(get(pvc, 'metadata', 'name'), 'hw-data');
      assert.equal(get(pvc, 'spec', 'storageClassName'), 'fast');
      const volumes = get(ofKind(r.objects, 'Deployment')[0], 'spec', 'template', 'spec', 'volumes') as Obj[];
      assert.equal(
        get(
          volumes.find((v) => v['name'] === 'data'),
          'persistentVolumeClaim',
          'claimName',
        ),
        'hw-data',
      );
      const dns = ofKind(r.objects, 'Service').find((s) => get(s, 'metadata', 'name') === 'hw-dns');
      assert.equal(get(dns, 'spec', 'type'), 'LoadBalancer');
      assert.ok(deploymentArgs(r.objects).includes('--embedded-zone=example.org'));
    },
  },
  {
    name: 'no RBAC and an existing service account',
    values: {
      // Without election the embedded provider runs one replica (the chart refuses more).
      leaderElection: false,
      replicaCount: 1,
      rbac: { create: false },
      serviceAccount: { create: false, name: 'preexisting' },
      metrics: { port: 9090, service: { enabled: false } },
    },
    expect: (r) => {
      assert.equal(ofKind(r.objects, 'ClusterRole').length + ofKind(r.objects, 'Role').length + ofKind(r.objects, 'ServiceAccount').length, 0);
      assert.equal(get(ofKind(r.objects, 'Deployment')[0], 'spec', 'template', 'spec', 'serviceAccountName'), 'preexisting');
      assert.ok(deploymentArgs(r.objects).includes('--metrics-address=:9090'));
      assert.ok(deploymentArgs(r.objects).includes('--leader-elect=false'));
    },
  },
];

describe('Helm chart', () => {
  test('values.yaml matches values.schema.json and declares every key', () => {
    const r = render({});
    assert.deepEqual(r.valuesCheck.errors, []);
    assert.deepEqual(r.valuesCheck.pruned, [], 'values without a schema entry');
  });

  for (const c of CASES) {
    test(`renders with ${c.name}: known kinds, locked-down pod, valid flags, exact RBAC`, async () => {
      const r = render(c.values);
      assert.deepEqual(r.valuesCheck.errors, []);
      assert.deepEqual(checkShapes([...r.objects], RELEASE.namespace), []);
      const { problems } = checkWorkload(r.objects);
      assert.deepEqual(problems, []);
      for (const o of r.objects) {
        assert.equal(get(o, 'metadata', 'labels', 'app.kubernetes.io/instance'), RELEASE.name, `${String(o['kind'])} labels`);
        assert.ok(String(get(o, 'metadata', 'name')).length <= 63, `${String(o['kind'])} name too long`);
      }
      const values = r.values;
      if ((values['rbac'] as Values)['create'] === true) {
        const account = String(get(ofKind(r.objects, 'Deployment')[0], 'spec', 'template', 'spec', 'serviceAccountName'));
        const grants = grantsOf(r.objects, { name: account, namespace: RELEASE.namespace });
        assert.deepEqual(grants.problems, []);
        // --gateway-listener-sets reads ListenerSets, granted with the chart value of that name.
        const sources = values['sources'] as string[];
        const listenerSets = values['enableGatewayListenerSets'] === true && sources.some((s) => /^gateway-[a-z]+route$/.test(s));
        const events = (values['eventsEmit'] as string[]).length > 0;
        const embedded = values['provider'] === 'embedded' ? ['embedded-replicas'] : [];
        const features = [...sources, ...(listenerSets ? ['gateway-listener-sets'] : []), ...(events ? ['events'] : []), ...embedded];
        const want = expectedGrants(await requiredPermissions(ROOT), features);
        // The unstructured source reads what the user lists, so its grants come from the values.
        if (sources.includes('unstructured'))
          for (const u of ((values['unstructured'] as Values)['resources'] as Values[]) ?? [])
            for (const verb of ['list', 'watch']) want.cluster.add(permissionKey({ group: String(u['group'] ?? ''), resource: String(u['resource']), verb }));
        assert.deepEqual(sorted(grants.cluster), sorted(want.cluster));
        assert.deepEqual(sorted(grants.namespaced), sorted(want.namespaced));
      }
      assert.equal(r.crds.length, 1);
      c.expect?.(r);
    });
  }

  test('the checks catch a weakened security context and a misspelt extra arg', () => {
    const weak = render({
      securityContext: { readOnlyRootFilesystem: false, runAsUser: 0, allowPrivilegeEscalation: true, capabilities: { add: ['NET_ADMIN'] } },
    });
    const problems = checkWorkload(weak.objects).problems.join('\n');
    for (const p of ['readOnlyRootFilesystem', 'runAsUser', 'allowPrivilegeEscalation', 'capabilities are added']) {
      assert.match(problems, new RegExp(p));
    }
    const keepsCaps = render({ securityContext: { capabilities: { drop: [] } } });
    assert.match(checkWorkload(keepsCaps.objects).problems.join('\n'), /capabilities do not drop ALL/);
    const typo = render({ extraArgs: ['--txt-cache-intervall=5m'] });
    assert.match(checkWorkload(typo.objects).problems.join('\n'), /unknown flag --txt-cache-intervall/);
  });

  test('values.schema.json rejects bad values', () => {
    assert.match(render({ policy: 'upsertonly' }).valuesCheck.errors.join('\n'), /policy/);
    assert.match(render({ sources: ['services'] }).valuesCheck.errors.join('\n'), /sources\[0\]/);
    assert.match(render({ sources: [] }).valuesCheck.errors.join('\n'), /sources/);
    assert.match(render({ interval: 'often' }).valuesCheck.errors.join('\n'), /interval/);
    assert.match(render({ extraArgs: ['txt-prefix=x'] }).valuesCheck.errors.join('\n'), /extraArgs/);
  });

  test('replicaCount 1: Recreate, no PodDisruptionBudget, spread and soft anti-affinity across nodes, grace above the drain', () => {
    const r = render({ replicaCount: 1 });
    const dep = ofKind(r.objects, 'Deployment')[0];
    assert.equal(get(dep, 'spec', 'replicas'), 1);
    assert.deepEqual(get(dep, 'spec', 'strategy'), { type: 'Recreate' });
    assert.equal(ofKind(r.objects, 'PodDisruptionBudget').length, 0);
    assertSpread(dep);
    assert.ok(deploymentArgs(r.objects).includes('--shutdown-drain=5s'));
    assert.ok(Number(get(dep, 'spec', 'template', 'spec', 'terminationGracePeriodSeconds')) > 5 + 4);
    assert.equal(get(dep, 'spec', 'template', 'spec', 'containers', 0, 'lifecycle'), undefined, 'the process drains itself: no preStop');
  });

  test('default: 3 embedded replicas, RollingUpdate (a new pod Ready before an old one stops), a PodDisruptionBudget of maxUnavailable 1, readiness, spread, POD_IP; more than one replica refuses persistence and a missing election', () => {
    const r = render({});
    assert.deepEqual(r.valuesCheck.errors, []);
    assert.deepEqual(checkShapes([...r.objects], RELEASE.namespace), []);
    const dep = ofKind(r.objects, 'Deployment')[0];
    assert.equal(get(dep, 'spec', 'replicas'), 3);
    assert.deepEqual(get(dep, 'spec', 'strategy'), { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } });
    const pdbs = ofKind(r.objects, 'PodDisruptionBudget');
    assert.equal(pdbs.length, 1);
    assert.equal(get(pdbs[0], 'spec', 'maxUnavailable'), 1);
    assert.deepEqual(get(pdbs[0], 'spec', 'selector', 'matchLabels'), get(dep, 'spec', 'selector', 'matchLabels'));
    assertSpread(dep);
    const container = get(dep, 'spec', 'template', 'spec', 'containers', 0);
    assert.equal(get(container, 'readinessProbe', 'httpGet', 'path'), '/readyz');
    assert.deepEqual(get(container, 'env', 0), { name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } });
    const role = ofKind(r.objects, 'Role').find((o) => String(get(o, 'metadata', 'name')).endsWith('-leader-election'));
    const secretRules = (get(role, 'rules') as Obj[]).filter((rule) => (rule['resources'] as string[]).includes('secrets'));
    assert.deepEqual(
      secretRules.map((rule) => [rule['verbs'], rule['resourceNames']]),
      [
        [['get'], ['hostwarden-embedded-peer']],
        [['create'], undefined],
      ],
    );
    // Another provider: replicas elect, no POD_IP and no Secret grants.
    const aws = ofKind(render({ replicaCount: 3, provider: 'aws' }).objects, 'Deployment')[0];
    assert.equal(get(aws, 'spec', 'template', 'spec', 'containers', 0, 'env'), undefined);
    assert.throws(
      () => render({ persistence: { enabled: true } }),
      /persistence.enabled needs replicaCount 1/,
      'replicas would share one ReadWriteOnce volume',
    );
    assert.equal(ofKind(render({ persistence: { enabled: true }, replicaCount: 1 }).objects, 'PersistentVolumeClaim').length, 1);
    assert.throws(
      () => render({ leaderElection: false }),
      /replicaCount above 1 with the embedded provider needs leaderElection: true/,
      'without a Lease every replica would write its own zones',
    );
  });

  test('the PodDisruptionBudget can be forced with one replica; spread and anti-affinity turn off; affinity replaces ours', () => {
    assert.equal(ofKind(render({ podDisruptionBudget: { enabled: true } }).objects, 'PodDisruptionBudget').length, 1);
    const off = ofKind(render({ spread: { topologySpread: false, podAntiAffinity: false } }).objects, 'Deployment')[0];
    assert.equal(get(off, 'spec', 'template', 'spec', 'topologySpreadConstraints'), undefined);
    assert.equal(get(off, 'spec', 'template', 'spec', 'affinity'), undefined);
    const mine = {
      nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'dns', operator: 'Exists' }] }] } },
    };
    const custom = ofKind(render({ affinity: mine }).objects, 'Deployment')[0];
    assert.deepEqual(get(custom, 'spec', 'template', 'spec', 'affinity'), mine);
    assert.match(render({ replicaCount: 0 }).valuesCheck.errors.join('\n'), /replicaCount/);
    assert.match(render({ shutdownDrain: 'soon' }).valuesCheck.errors.join('\n'), /shutdownDrain/);
  });

  test('RBAC follows the sources: a crd-only install cannot read Services', () => {
    const r = render({ sources: ['crd'] });
    const grants = grantsOf(r.objects, { name: 'dns-hostwarden', namespace: RELEASE.namespace });
    assert.ok(!grants.cluster.has('core/services:list'));
    assert.ok(!grants.cluster.has('networking.k8s.io/ingresses:watch'));
    assert.ok(grants.cluster.has('externaldns.k8s.io/dnsendpoints/status:patch'));
  });
});

/** Spread across nodes (ScheduleAnyway) and a preferred anti-affinity, both selecting this release's pods. */
function assertSpread(dep: Obj | undefined): void {
  const pod = get(dep, 'spec', 'template', 'spec');
  const selector = get(dep, 'spec', 'selector', 'matchLabels');
  const spread = (get(pod, 'topologySpreadConstraints') as Obj[])[0];
  assert.deepEqual(spread, {
    maxSkew: 1,
    topologyKey: 'kubernetes.io/hostname',
    whenUnsatisfiable: 'ScheduleAnyway',
    labelSelector: { matchLabels: selector },
  });
  const term = get(pod, 'affinity', 'podAntiAffinity', 'preferredDuringSchedulingIgnoredDuringExecution', 0, 'podAffinityTerm');
  assert.deepEqual(term, { topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: selector } });
  assert.equal(get(pod, 'affinity', 'podAntiAffinity', 'requiredDuringSchedulingIgnoredDuringExecution'), undefined);
}
