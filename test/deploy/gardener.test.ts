/**
 * deploy/gardener: the ControllerDeployment's helm.rawChart is exactly charts/hostwarden-gardener-extension;
 * the ControllerRegistration and ControllerDeployments pass Gardener's schemas (restated under
 * test/support/crds/gardener) in the test API server; the chart, rendered from that rawChart with
 * the values gardenlet passes, ships no CRD, grants exactly the DNSRecord permission table, and its
 * controller (the rendered args) serves a DNSRecord against the test API server with Gardener's CRDs.
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import {
  ALIASED_DEPLOYMENT_FILE,
  CONTROLLER_DEPLOYMENT_FILE,
  GARDENER_CHART_DIR,
  GENERATED,
  REGISTRATION_NAME,
  chartFiles,
  unpackChart,
} from '../../bin/gardener-chart.ts';
import { DNSRECORD_PERMISSIONS, permissionKey } from '../../src/dnsrecord/permissions.ts';
import { servedTypes } from '../../src/dnsrecord/flags.ts';
import { DNSRECORDS } from '../../src/dnsrecord/types.ts';
import type { DNSRecord } from '../../src/dnsrecord/types.ts';
import { KubeClient } from '../../src/kube/client.ts';
import { collectionPath, objectPath } from '../../src/kube/resource.ts';
import { silentLogger } from '../../src/log.ts';
import { BIN, REPO_ROOT } from '../support/cli.ts';
import { installCrd, loadCrd } from '../support/crds/load.ts';
import { dig, digAvailable } from '../support/dig.ts';
import { startTestApiServer } from '../support/kube-apiserver/server.ts';
import { mergeValues, parseYamlDocuments, renderChart } from './chart.ts';
import type { RenderedChart } from './chart.ts';
import { get, grantsOf, ofKind, parseContainerArgs } from './checks.ts';
import type { Obj } from './checks.ts';

const GARDENER = join(REPO_ROOT, 'deploy/gardener');
// gardenlet installs into extension-<ControllerInstallation name>, release name = registration name.
const NAMESPACE = 'extension-hostwarden-x7k2p';

/** The `gardener` values gardenlet mixes in (pkg/gardenlet/controller/controllerinstallation/controllerinstallation/reconciler.go). */
const GARDENLET_VALUES = {
  gardener: {
    version: 'v1.120.0',
    garden: { clusterIdentity: 'garden-1' },
    gardenlet: { featureGates: { DefaultSeccompProfile: true, NewWorkerPoolHash: false } },
    seed: {
      name: 'seed-1',
      clusterIdentity: 'seed-1-id',
      annotations: null,
      labels: { 'seed.gardener.cloud/gardener': 'true' },
      provider: 'local',
      region: 'local',
      volumeProvider: '',
      volumeProviders: null,
      protected: false,
      visible: true,
      taints: null,
      networks: { nodes: '10.0.0.0/16', pods: '10.1.0.0/16', services: '10.2.0.0/16' },
      blockCIDRs: null,
      spec: { provider: { type: 'local', region: 'local' } },
      ingressDomain: 'ingress.seed-1.example.org',
    },
  },
};

function yamlDocs(file: string): Obj[] {
  return parseYamlDocuments(readFileSync(file, 'utf8'), file);
}

/** Unpacks a ControllerDeployment's rawChart into a directory and renders it as gardenlet does. */
async function renderDeployment(cd: Obj, values: Obj, dir: string): Promise<RenderedChart> {
  const files = unpackChart(Buffer.from(String(get(cd, 'helm', 'rawChart')), 'base64'));
  for (const [path, data] of files) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), data);
  }
  const chartDir = join(dir, [...files.keys()][0]?.split('/')[0] ?? '');
  // gardenlet: utils.MergeMaps(helm.values, gardenerValues); Helm then coalesces with values.yaml.
  return renderChart(chartDir, mergeValues(mergeValues((get(cd, 'helm', 'values') ?? {}) as Obj, GARDENLET_VALUES), values), {
    name: REGISTRATION_NAME,
    namespace: NAMESPACE,
  });
}

describe('deploy/gardener', () => {
  test('each generated ControllerDeployment holds exactly the chart, under its directory name, as helm.rawChart', () => {
    const want = chartFiles(GARDENER_CHART_DIR);
    for (const g of GENERATED) {
      const [cd] = yamlDocs(g.file);
      assert.equal(get(cd, 'apiVersion'), 'core.gardener.cloud/v1');
      assert.equal(get(cd, 'metadata', 'name'), g.name);
      assert.deepEqual(get(cd, 'helm', 'values'), g.values, `${g.file}: values differ from bin/gardener-chart.ts; run it again`);
      const got = unpackChart(Buffer.from(String(get(cd, 'helm', 'rawChart')), 'base64'));
      assert.deepEqual(
        [...got.keys()],
        [...want.keys()].map((f) => `hostwarden-gardener-extension/${f}`),
        `${g.file} is stale: run node --import tsx bin/gardener-chart.ts`,
      );
      for (const [f, data] of want)
        assert.ok(got.get(`hostwarden-gardener-extension/${f}`)?.equals(data), `${g.file}: ${f} differs from the chart; run bin/gardener-chart.ts`);
    }
  });

  test('the chart ships no CRD: Gardener manages dnsrecords.extensions.gardener.cloud in the seed', () => {
    assert.ok(!readdirSync(GARDENER_CHART_DIR).includes('crds'));
    for (const [f, data] of chartFiles(GARDENER_CHART_DIR)) assert.doesNotMatch(data.toString(), /CustomResourceDefinition/, f);
  });

  test('registrations name each DNSRecord type once as primary, exactly the types their ControllerDeployment serves', () => {
    const pairs = [
      { reg: join(GARDENER, 'controller-registration.yaml'), cd: CONTROLLER_DEPLOYMENT_FILE },
      { reg: join(GARDENER, 'example/20-controller-registration-route53.yaml'), cd: ALIASED_DEPLOYMENT_FILE },
    ];
    // Types Gardener's provider extensions register as primary (provider-aws, -gcp, -azure, -openstack, -alicloud, -local).
    const takenByProviders = ['aws-route53', 'google-clouddns', 'azure-dns', 'azure-private-dns', 'openstack-designate', 'alicloud-dns', 'local'];
    for (const { reg, cd } of pairs) {
      const [r] = yamlDocs(reg);
      const [d] = yamlDocs(cd);
      const resources = get(r, 'spec', 'resources') as Obj[];
      assert.ok(resources.every((x) => x['kind'] === 'DNSRecord' && x['primary'] === true));
      const types = resources.map((x) => String(x['type']));
      assert.deepEqual(
        types,
        servedTypes(get(d, 'helm', 'values', 'dnsrecordTypes') as string[]).map((t) => t.served),
      );
      assert.deepEqual(
        types.filter((t) => takenByProviders.includes(t)),
        [],
      );
      assert.deepEqual(get(r, 'spec', 'deployment', 'deploymentRefs'), [{ name: get(d, 'metadata', 'name') }]);
    }
  });

  test("the API server accepts the registrations and deployments under Gardener's schemas, and rejects a malformed one", async () => {
    const api = await startTestApiServer({});
    const client = new KubeClient({ config: api.kubeConfig(), logger: silentLogger() });
    try {
      await installCrd(api, loadCrd('gardener', 'controllerregistrations.core.gardener.cloud'));
      await installCrd(api, loadCrd('gardener', 'controllerdeployments.core.gardener.cloud'));
      const files = [
        join(GARDENER, 'controller-registration.yaml'),
        CONTROLLER_DEPLOYMENT_FILE,
        ...readdirSync(join(GARDENER, 'example'))
          .sort()
          .map((f) => join(GARDENER, 'example', f)),
      ];
      let created = 0;
      for (const o of files.flatMap(yamlDocs).filter((x) => String(x['apiVersion']).startsWith('core.gardener.cloud/'))) {
        const plural = o['kind'] === 'ControllerRegistration' ? 'controllerregistrations' : 'controllerdeployments';
        const stored = await client.request<Obj>('POST', `/apis/${String(o['apiVersion'])}/${plural}`, { body: o });
        assert.deepEqual(get(stored, 'spec') ?? get(stored, 'helm', 'values'), get(o, 'spec') ?? get(o, 'helm', 'values'), 'nothing pruned');
        created++;
      }
      assert.equal(created, 4);
      const bad = { apiVersion: 'core.gardener.cloud/v1', kind: 'ControllerDeployment', metadata: { name: 'bad' }, helm: { rawChart: 'not base64!' } };
      await assert.rejects(client.request('POST', '/apis/core.gardener.cloud/v1/controllerdeployments', { body: bad }), /rawChart/);
    } finally {
      client.close();
      await api.stop();
    }
  });

  test("rendered with gardenlet's values: one hardened Deployment running dnsrecord-controller, RBAC exactly the permission table", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hw-gardener-render-'));
    try {
      const [cd] = yamlDocs(CONTROLLER_DEPLOYMENT_FILE);
      const r = await renderDeployment(cd as Obj, {}, dir);
      assert.deepEqual(r.valuesCheck.errors, []);
      assert.deepEqual(r.crds, []);
      assert.deepEqual(ofKind(r.objects, 'CustomResourceDefinition'), []);
      const dep = ofKind(r.objects, 'Deployment')[0];
      assert.equal(get(dep, 'metadata', 'namespace'), NAMESPACE);
      assert.equal(get(dep, 'spec', 'replicas'), 1);
      const pod = get(dep, 'spec', 'template', 'spec');
      assert.equal(get(pod, 'priorityClassName'), 'gardener-system-900');
      assert.equal(get(dep, 'spec', 'template', 'metadata', 'annotations', 'hostwarden.io/gardener-version'), 'v1.120.0');
      const c = get(pod, 'containers', 0) as Obj;
      assert.equal(c['image'], 'hostwarden/hostwarden:0.1.0');
      assert.equal(get(c, 'securityContext', 'readOnlyRootFilesystem'), true);
      const cfg = parseContainerArgs(c['args'] as string[]);
      assert.deepEqual(cfg.flags.list('dnsrecord-types'), ['rfc2136', 'powerdns']);
      assert.equal(cfg.flags.str('leader-election-namespace'), NAMESPACE);
      // Gardener's library defaults, as provider-aws's chart passes them: class shoot (none given), annotation honoured.
      assert.deepEqual(cfg.flags.list('extension-classes'), []);
      assert.equal(cfg.flags.bool('ignore-operation-annotation'), false);
      const grants = grantsOf(r.objects, { name: String(get(pod, 'serviceAccountName')), namespace: NAMESPACE });
      assert.deepEqual(grants.problems, []);
      const want = (scope: string): string[] =>
        DNSRECORD_PERMISSIONS.filter((p) => p.scope === scope)
          .map(permissionKey)
          .sort();
      assert.deepEqual([...grants.cluster].sort(), want('cluster'));
      assert.deepEqual([...grants.namespaced].sort(), want('namespace'));

      // The aliased example renders too: its type names and extra flags are ones bin/hostwarden accepts.
      const [aliased] = yamlDocs(ALIASED_DEPLOYMENT_FILE);
      const a = await renderDeployment(aliased as Obj, {}, join(dir, 'a'));
      assert.deepEqual(a.valuesCheck.errors, []);
      const aCfg = parseContainerArgs(get(ofKind(a.objects, 'Deployment')[0], 'spec', 'template', 'spec', 'containers', 0, 'args') as string[]);
      assert.deepEqual(servedTypes(aCfg.flags.list('dnsrecord-types')), [{ served: 'hostwarden-aws-route53', backend: 'aws-route53' }]);
      assert.equal(aCfg.flags.num('aws-requests-per-second'), 2);

      // A garden runtime cluster: gardenlet's runtimeCluster values choose the priority class.
      const garden = await renderDeployment(cd as Obj, { gardener: { runtimeCluster: { priorityClassName: 'gardener-garden-system-200' } } }, join(dir, 'g'));
      assert.equal(get(ofKind(garden.objects, 'Deployment')[0], 'spec', 'template', 'spec', 'priorityClassName'), 'gardener-garden-system-200');
      // …and, enabled, the garden class, as provider-aws's chart does there.
      const enabled = await renderDeployment(cd as Obj, { gardener: { runtimeCluster: { enabled: true } }, extensionClasses: ['seed'] }, join(dir, 'e'));
      const eArgs = get(ofKind(enabled.objects, 'Deployment')[0], 'spec', 'template', 'spec', 'containers', 0, 'args') as string[];
      assert.deepEqual(parseContainerArgs(eArgs).flags.list('extension-classes'), ['garden']);
      const seed = await renderDeployment(cd as Obj, { extensionClasses: ['seed', 'shoot'], ignoreOperationAnnotation: true }, join(dir, 's'));
      const sCfg = parseContainerArgs(get(ofKind(seed.objects, 'Deployment')[0], 'spec', 'template', 'spec', 'containers', 0, 'args') as string[]);
      assert.deepEqual(sCfg.flags.list('extension-classes'), ['seed', 'shoot']);
      assert.equal(sCfg.flags.bool('ignore-operation-annotation'), true);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

const skip = (await digAvailable()) ? false : 'dig is not installed';

describe('the rendered extension against the test API server with Gardener CRDs', { skip }, () => {
  test('the rendered args serve an embedded DNSRecord (and one of an aliased type name): Created, answered in DNS, deleted', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hw-gardener-run-'));
    const shootNs = 'shoot--dev--gardener';
    const api = await startTestApiServer({ namespaces: [NAMESPACE, shootNs], bookmarkIntervalMs: 200 });
    const client = new KubeClient({ config: api.kubeConfig(), logger: silentLogger() });
    let child: ReturnType<typeof spawn> | undefined;
    try {
      await installCrd(api, loadCrd('gardener', 'dnsrecords.extensions.gardener.cloud'));
      await installCrd(api, loadCrd('gardener', 'clusters.extensions.gardener.cloud'));
      const [cd] = yamlDocs(CONTROLLER_DEPLOYMENT_FILE);
      const r = await renderDeployment(
        cd as Obj,
        { dnsrecordTypes: ['embedded', 'hostwarden-embedded=embedded'], embedded: { zones: ['example.test'] } },
        join(dir, 'chart'),
      );
      assert.deepEqual(r.valuesCheck.errors, []);
      const rendered = get(ofKind(r.objects, 'Deployment')[0], 'spec', 'template', 'spec', 'containers', 0, 'args') as string[];
      // The pod's addresses and volume become this machine's: loopback ports, a temporary data dir.
      const local: Record<string, string> = {
        'metrics-address': '127.0.0.1:0',
        'dns-listen': '127.0.0.1:0',
        'embedded-data-dir': join(dir, 'data'),
      };
      const args = rendered.map((a) => {
        const m = /^--([\w-]+)=/.exec(a);
        const over = m === null ? undefined : local[m[1] ?? ''];
        return over === undefined ? a : `--${m?.[1] ?? ''}=${over}`;
      });
      assert.equal(args.filter((a, i) => a !== rendered[i]).length, 3);
      args.push(`--kubeconfig=${await api.writeKubeconfig(dir)}`);
      child = spawn(process.execPath, [BIN, ...args], { cwd: REPO_ROOT, env: { PATH: process.env['PATH'] ?? '' }, stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr?.on('data', (b: Buffer) => (stderr += b.toString()));
      const dnsPort = await until('DNS server listening', () => {
        const line = stderr.split('\n').find((l) => l.includes('DNS server listening'));
        const addr = line === undefined ? undefined : (JSON.parse(line) as { addresses: string[] }).addresses[0];
        return addr === undefined ? undefined : Number(addr.split(':').pop());
      });

      const rec: DNSRecord = {
        apiVersion: DNSRECORDS.apiVersion,
        kind: 'DNSRecord',
        metadata: { name: 'shoot-external', namespace: shootNs },
        spec: { type: 'embedded', secretRef: { name: 'unused' }, name: 'api.shoot.example.test', recordType: 'A', values: ['192.0.2.21'] },
      };
      await client.request('POST', collectionPath(DNSRECORDS, shootNs), { body: rec });
      const done = await untilAsync('Created', async () => {
        const got = await client.request<DNSRecord>('GET', objectPath(DNSRECORDS, shootNs, 'shoot-external'));
        return got.status?.lastOperation?.state === 'Succeeded' ? got : undefined;
      }).catch((err: unknown) => {
        throw new Error(`${String(err)}; the controller logged:\n${stderr.slice(-4000)}`);
      });
      assert.equal(done.status?.conditions?.find((c) => c.type === 'Created')?.status, 'True');
      const answer = await dig(dnsPort, ['api.shoot.example.test', 'A', '+norec']);
      assert.deepEqual(
        answer.answer.map((l) => l.split(' ').slice(3).join(' ')),
        ['A 192.0.2.21'],
      );
      // A type name of Hostwarden's own (NAME=TYPE) is served by that type's backend.
      await client.request('POST', collectionPath(DNSRECORDS, shootNs), {
        body: { ...rec, metadata: { name: 'aliased', namespace: shootNs }, spec: { ...rec.spec, type: 'hostwarden-embedded', name: 'alias.example.test' } },
      });
      await untilAsync('aliased answered', async () => ((await dig(dnsPort, ['alias.example.test', 'A', '+norec'])).answer.length === 1 ? true : undefined));
      const lease = await client.request<Obj>('GET', `/apis/coordination.k8s.io/v1/namespaces/${NAMESPACE}/leases/gardener-extension-hostwarden`);
      assert.ok(String(get(lease, 'spec', 'holderIdentity') ?? '') !== '');

      await client.request('DELETE', objectPath(DNSRECORDS, shootNs, 'shoot-external'));
      await untilAsync('gone from DNS', async () => ((await dig(dnsPort, ['api.shoot.example.test', 'A', '+norec'])).answer.length === 0 ? true : undefined));
    } finally {
      if (child !== undefined && child.exitCode === null) {
        const exited = new Promise((res) => child?.once('exit', res));
        child.kill('SIGKILL');
        await exited;
      }
      client.close();
      await api.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

async function until<T>(what: string, check: () => T | undefined): Promise<T> {
  return untilAsync(what, () => Promise.resolve(check()));
}

async function untilAsync<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (let i = 0; i < 10_000 && Date.now() < deadline; i++) {
    try {
      const v = await check();
      if (v !== undefined) return v;
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}${last === undefined ? '' : ` (${String(last)})`}`);
}
