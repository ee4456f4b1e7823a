/**
 * deploy/operator agrees with the code: the RBAC grants every call the operator made during a
 * reconcile cycle (recorded, not guessed), the operand's generated role grants every call its status
 * reporter makes, the webhook and CRD point at paths the server serves, the Deployment's args are
 * flags the CLI accepts, and the CRD's versions and schema match the API.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { parseListenAddress, resolveConfig } from '../../src/config/config.ts';
import { parseCommandArgs } from '../../src/cli/commands.ts';
import type { Command } from '../../src/cli/commands.ts';
import { PROVIDER_NAMES, SOURCE_NAMES } from '../../src/cli/wiring.ts';
import type { KubeClient } from '../../src/kube/client.ts';
import { objectPath } from '../../src/kube/resource.ts';
import { silentLogger } from '../../src/log.ts';
import { ExternalDNSController } from '../../src/operator/controller.ts';
import { buildOperand } from '../../src/operator/operand.ts';
import { OperandStatusReporter } from '../../src/operator/operand-status.ts';
import { detectPlatform } from '../../src/operator/platform.ts';
import { ExternalDNSReconciler } from '../../src/operator/reconciler.ts';
import { EXTERNALDNSES } from '../../src/operator/types.ts';
import { CONVERT_PATH, VALIDATE_PATH } from '../../src/operator/webhook.ts';
import { OPERAND_NS, OPERATOR_NS, awsExternalDNS, awsSecret, deployDocs, startOperatorEnv } from './harness.ts';
import type { OperatorEnv } from './harness.ts';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

interface Call {
  group: string;
  resource: string;
  namespace: string;
  verb: string;
}

/** `/apis/g/v/namespaces/ns/plural/name/sub` → what RBAC sees. */
function callOf(method: string, path: string, query: Record<string, unknown> | undefined): Call {
  const parts = path
    .split('?')[0]!
    .split('/')
    .filter((p) => p !== '');
  const group = parts[0] === 'api' ? '' : parts[1]!;
  let rest = parts.slice(parts[0] === 'api' ? 2 : 3);
  let namespace = '';
  if (rest[0] === 'namespaces' && rest.length > 2) {
    namespace = rest[1]!;
    rest = rest.slice(2);
  }
  const [plural, name, sub] = rest;
  const resource = sub === undefined ? plural! : `${plural!}/${sub}`;
  const verb =
    method === 'WATCH' || query?.['watch'] === true
      ? 'watch'
      : method === 'GET'
        ? name === undefined
          ? 'list'
          : 'get'
        : method === 'POST'
          ? 'create'
          : method === 'PUT'
            ? 'update'
            : method.toLowerCase();
  return { group, resource, namespace, verb };
}

function recording(client: KubeClient, calls: Call[]): Pick<KubeClient, 'request' | 'watch'> {
  return {
    request: (method, path, spec) => {
      calls.push(callOf(method, path, spec?.query));
      // A server-side apply that creates needs create too.
      if (spec?.contentType === 'application/apply-patch+yaml') calls.push({ ...callOf('POST', path, undefined) });
      return client.request(method, path, spec);
    },
    watch: (path, query, onEvent, signal) => {
      calls.push(callOf('WATCH', path, query));
      return client.watch(path, query, onEvent, signal);
    },
  };
}

interface Rule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
  resourceNames?: string[];
}

function granted(rules: readonly Rule[], c: Call): boolean {
  return rules.some((r) => r.apiGroups.includes(c.group) && r.resources.includes(c.resource) && r.verbs.includes(c.verb));
}

function uncovered(calls: readonly Call[], cluster: readonly Rule[], byNamespace: ReadonlyMap<string, Rule[]>): string[] {
  const keys = new Set(calls.map((c) => JSON.stringify(c)));
  return [...keys]
    .map((k) => JSON.parse(k) as Call)
    .filter((c) => !granted(cluster, c) && !(c.namespace !== '' && granted(byNamespace.get(c.namespace) ?? [], c)))
    .map((c) => `${c.verb} ${c.group || 'core'}/${c.resource} in ${c.namespace || '(cluster)'}`);
}

describe('deploy/operator', () => {
  const docs = ['namespaces.json', 'crd.json', 'rbac.json', 'deployment.json', 'webhook.json'].flatMap((f) => deployDocs(f)) as Obj[];
  const one = (kind: string, name?: string, namespace?: string): Obj => {
    const found = docs.filter(
      (d) => d['kind'] === kind && (name === undefined || d['metadata'].name === name) && (namespace === undefined || d['metadata'].namespace === namespace),
    );
    assert.equal(found.length, 1, `${kind} ${name ?? ''} ${namespace ?? ''}`);
    return found[0]!;
  };
  const sa = 'hostwarden-operator';
  const clusterRules = docs
    .filter((d) => d['kind'] === 'ClusterRoleBinding' && d['subjects'].some((s: Obj) => s['name'] === sa))
    .flatMap((b) => one('ClusterRole', b['roleRef'].name)['rules'] as Rule[]);
  const nsRules = new Map<string, Rule[]>();
  for (const b of docs.filter((d) => d['kind'] === 'RoleBinding' && d['subjects'].some((s: Obj) => s['name'] === sa))) {
    const ns = b['metadata'].namespace as string;
    nsRules.set(ns, [...(nsRules.get(ns) ?? []), ...(one('Role', b['roleRef'].name, ns)['rules'] as Rule[])]);
  }

  let env: OperatorEnv;
  before(async () => {
    env = await startOperatorEnv();
  });
  after(async () => env.stop());

  test('RBAC grants every call a reconcile cycle made: watch, create, secret rotation, a dropped Secret, deletion, OpenShift detection', async () => {
    const calls: Call[] = [];
    const client = recording(env.client, calls);
    const platform = await detectPlatform(client);
    assert.equal(platform.openshift, false);
    const reconciler = new ExternalDNSReconciler({ client, logger: silentLogger(), operand: env.settings, operatorNamespace: OPERATOR_NS });
    const controller = new ExternalDNSController({ client, logger: silentLogger(), reconciler, operandNamespace: OPERAND_NS, operatorNamespace: OPERATOR_NS });
    controller.start();
    try {
      assert.ok(await controller.waitForSync(5000));
      await env.client.request('POST', `/api/v1/namespaces/${OPERATOR_NS}/secrets`, { body: awsSecret('aws-creds') });
      await env.client.request('POST', '/apis/externaldns.olm.openshift.io/v1beta1/externaldnses', { body: awsExternalDNS('rbac') });
      await reconciler.reconcile('rbac');
      // Credentials taken out of the spec: outside OpenShift that spec is refused now (assumeRole
      // needs a Secret, as upstream), so the operand and its copy stay as they were.
      await env.client.request('PATCH', objectPath(EXTERNALDNSES, '', 'rbac'), {
        body: { spec: { provider: { aws: { credentials: { name: '' } } } } },
        contentType: 'application/merge-patch+json',
      });
      // The controller reconciles at the same time: a conflicting status write is retried, as its queue would.
      for (let attempt = 1; ; attempt++) {
        const conflict = await reconciler.reconcile('rbac').then(
          () => false,
          (e: unknown) => /409/.test(String(e)) && attempt < 5,
        );
        if (!conflict) break;
      }
      await env.client.request('DELETE', objectPath(EXTERNALDNSES, '', 'rbac'));
      await reconciler.reconcile('rbac');
      await controller.queue.idle();
    } finally {
      await controller.stop();
    }
    // The OpenShift-only calls, made against a cluster that has the APIs.
    await reconcilerOnOpenShift(env, recording(env.client, calls));
    const seen = new Set(calls.map((c) => `${c.verb} ${c.group}/${c.resource}`));
    for (const want of [
      'get config.openshift.io/infrastructures',
      'patch cloudcredential.openshift.io/credentialsrequests',
      'watch /secrets',
      'patch externaldns.olm.openshift.io/externaldnses/status',
      'list /pods',
      'create rbac.authorization.k8s.io/clusterroles',
    ])
      assert.ok(seen.has(want), want);
    assert.deepEqual(uncovered(calls, clusterRules, nsRules), []);
  });

  test('the operand role grants what its status reporter calls, on its own object only', async () => {
    await env.client.request('POST', '/apis/externaldns.olm.openshift.io/v1beta1/externaldnses', { body: awsExternalDNS('reporter') });
    const calls: Call[] = [];
    const reporter = new OperandStatusReporter({ client: recording(env.client, calls), name: 'reporter', logger: silentLogger() });
    reporter.onSynced();
    await reporter.flush();
    assert.ok(calls.length >= 2);
    const role = buildOperand(awsExternalDNS('reporter'), env.settings, undefined).clusterRole;
    assert.deepEqual(uncovered(calls, role.rules, new Map()), []);
    for (const r of role.rules.filter((x) => x.apiGroups.includes('externaldns.olm.openshift.io'))) assert.deepEqual(r.resourceNames, ['reporter']);
  });

  test('the webhook and the CRD conversion call paths the operator serves, through the Service and its certificate', () => {
    const vwc = one('ValidatingWebhookConfiguration');
    const hook = vwc['webhooks'][0];
    assert.equal(hook.clientConfig.service.path, VALIDATE_PATH);
    assert.equal(hook.failurePolicy, 'Fail');
    assert.equal(hook.sideEffects, 'None');
    assert.deepEqual(hook.rules[0].resources, ['externaldnses']);
    const crd = one('CustomResourceDefinition');
    const conv = crd['spec'].conversion.webhook.clientConfig.service;
    assert.equal(conv.path, CONVERT_PATH);
    for (const ref of [hook.clientConfig.service, conv]) {
      const svc = one('Service', ref.name, ref.namespace);
      assert.ok(svc['spec'].ports.some((p: Obj) => p['port'] === ref.port));
    }
    const cert = one('Certificate');
    assert.ok(cert['spec'].dnsNames.includes(`${String(conv.name)}.${String(conv.namespace)}.svc`));
    for (const o of [vwc, crd])
      assert.equal(o['metadata'].annotations['cert-manager.io/inject-ca-from'], `${String(cert['metadata'].namespace)}/${String(cert['metadata'].name)}`);
  });

  test('the Deployment runs flags the CLI accepts, serving on the port the Service targets, with its TLS files mounted', () => {
    const dep = one('Deployment');
    const c = dep['spec'].template.spec.containers[0];
    assert.equal(c.args[0], 'operator');
    const cfg = resolveConfig(parseCommandArgs(c.args[0] as Command, c.args.slice(1), {}), { sources: SOURCE_NAMES, providers: PROVIDER_NAMES });
    assert.equal(c.ports.find((p: Obj) => p['name'] === 'https').containerPort, parseListenAddress(cfg.flags.str('webhook-listen'), '--webhook-listen').port);
    assert.equal(dep['spec'].template.spec.serviceAccountName, sa);
    assert.equal(dep['metadata'].namespace, cfg.flags.str('operator-namespace'));
    assert.ok(nsRules.has(cfg.flags.str('operand-namespace')), 'the operand namespace has a Role');
    const tlsMount = c.volumeMounts.find((m: Obj) => cfg.flags.str('tls-cert-file').startsWith(`${String(m['mountPath'])}/`));
    const volume = dep['spec'].template.spec.volumes.find((v: Obj) => v['name'] === tlsMount.name);
    assert.equal(volume.secret.secretName, one('Certificate')['spec'].secretName);
  });

  test('the generated operand args are flags `hostwarden run` accepts, for every provider and source', () => {
    const svc = {
      type: 'Service' as const,
      fqdnTemplate: ['{{.Name}}.example.org'],
      labelFilter: { matchLabels: { a: 'b' } },
      service: { serviceType: ['ClusterIP'] },
      namespace: 'apps',
    };
    const specs: NonNullable<Parameters<typeof awsExternalDNS>[1]>[] = [
      {
        provider: { type: 'AWS', aws: { credentials: { name: 'c' }, assumeRole: { arn: 'arn:aws:iam::123456789012:role/dns', externalID: 'ext' } } },
        source: svc,
        domains: [
          { name: 'a.org' },
          { filterType: 'Exclude', name: 'b.a.org' },
          { matchType: 'Pattern', pattern: 'x$' },
          { filterType: 'Exclude', matchType: 'Pattern', pattern: '^y' },
        ],
        intervalSeconds: 300,
      },
      {
        provider: { type: 'GCP', gcp: { project: 'p', credentials: { name: 'g' } } },
        source: { type: 'CRD', hostnameAnnotation: 'Allow', crd: { apiVersion: 'externaldns.k8s.io/v1alpha1', kind: 'DNSEndpoint' } },
      },
      { provider: { type: 'Azure', azure: { configFile: { name: 'a' } } }, source: svc },
      {
        provider: {
          type: 'RFC2136',
          rfc2136: { host: 'ns1', zone: 'example.org', port: 5353, tsigKeyName: 'k', tsigAlgorithm: 'hmac-sha256', tsigSecret: { name: 't' } },
        },
        source: svc,
      },
      { provider: { type: 'PowerDNS', powerDNS: { server: 'http://pdns:8081', apiKey: { name: 'k' } } }, source: svc },
      { provider: { type: 'Embedded' }, source: svc },
      {
        provider: { type: 'AWS', aws: { credentials: { name: 'c' } } },
        source: { type: 'OpenShiftRoute', hostnameAnnotation: 'Ignore', openshiftRouteOptions: { routerName: 'default' } },
      },
    ];
    for (const spec of specs) {
      const dep = buildOperand(awsExternalDNS('args', spec), env.settings, { data: { x: 'eA==' } }).deployment as Obj;
      for (const c of dep['spec'].template.spec.containers as Obj[]) {
        assert.equal(c['args'][0], 'run');
        const cfg = resolveConfig(parseCommandArgs(c['args'][0] as Command, c['args'].slice(1), {}), { sources: SOURCE_NAMES, providers: PROVIDER_NAMES });
        assert.equal(cfg.flags.str('status-externaldns'), 'args');
        assert.equal(cfg.txtOwnerId, 'external-dns-args');
        if (spec.source?.type === 'OpenShiftRoute') {
          assert.deepEqual(cfg.sources, ['openshift-route']);
          assert.equal(cfg.flags.str('openshift-router-name'), 'default');
        }
      }
    }
  });

  test('the CRD: cluster scope, v1beta1 stored, v1alpha1 served without assumeRole, status subresource, limits', () => {
    const crd = one('CustomResourceDefinition');
    assert.equal(crd['spec'].scope, 'Cluster');
    const [beta, alpha] = crd['spec'].versions as Obj[];
    assert.deepEqual([beta!['name'], beta!['storage'], alpha!['name'], alpha!['storage'], alpha!['served']], ['v1beta1', true, 'v1alpha1', false, true]);
    const spec = (v: Obj): Obj => v['schema'].openAPIV3Schema.properties.spec;
    assert.ok(spec(beta!).properties.provider.properties.aws.properties.assumeRole.properties.externalID);
    assert.equal(spec(alpha!).properties.provider.properties.aws.properties.assumeRole, undefined);
    assert.equal(spec(beta!).properties.zones.maxItems, 10);
    assert.deepEqual([spec(beta!).properties.intervalSeconds.minimum, spec(beta!).properties.intervalSeconds.maximum], [60, 3600]);
    assert.deepEqual(spec(beta!).properties.source.properties.service.properties.serviceType.default, ['LoadBalancer']);
    assert.equal(spec(beta!).properties.source.properties.hostnameAnnotation.default, 'Ignore');
    assert.deepEqual(spec(beta!).properties.provider.properties.aws.properties.credentials.default, { name: '' });
    for (const v of [beta!, alpha!]) assert.deepEqual(v['subresources'], { status: {} });
  });
});

async function reconcilerOnOpenShift(env: OperatorEnv, client: Pick<KubeClient, 'request' | 'watch'>): Promise<void> {
  const crd = (group: string, kind: string, plural: string, scope: string): Obj => ({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      scope,
      names: { kind, plural, singular: kind.toLowerCase(), listKind: `${kind}List` },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
    },
  });
  await env.client.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
    body: crd('config.openshift.io', 'Infrastructure', 'infrastructures', 'Cluster'),
  });
  await env.client.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
    body: crd('cloudcredential.openshift.io', 'CredentialsRequest', 'credentialsrequests', 'Namespaced'),
  });
  await env.client.request('POST', '/api/v1/namespaces', {
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'openshift-cloud-credential-operator' } },
  });
  await env.client.request('POST', '/apis/config.openshift.io/v1/infrastructures', {
    body: { apiVersion: 'config.openshift.io/v1', kind: 'Infrastructure', metadata: { name: 'cluster' } },
  });
  const platform = await detectPlatform(client);
  assert.equal(platform.openshift, true);
  const r = new ExternalDNSReconciler({ client, logger: silentLogger(), operand: { ...env.settings, platform }, operatorNamespace: OPERATOR_NS });
  await env.client.request('POST', '/apis/externaldns.olm.openshift.io/v1beta1/externaldnses', { body: awsExternalDNS('ocp', { provider: { type: 'AWS' } }) });
  await r.reconcile('ocp');
  await env.client.request('POST', `/api/v1/namespaces/${OPERAND_NS}/secrets`, {
    body: { ...awsSecret('x'), metadata: { name: 'hostwarden-ocp-credentials', namespace: OPERAND_NS } },
  });
  await r.reconcile('ocp');
  await env.client.request('DELETE', objectPath(EXTERNALDNSES, '', 'ocp'));
  await r.reconcile('ocp');
}
