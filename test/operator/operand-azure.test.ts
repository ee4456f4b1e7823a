/**
 * Azure on OpenShift end to end: the Cloud Credential Operator's minted Secret (azure_client_id,
 * azure_client_secret, azure_tenant_id, azure_subscription_id, azure_resourcegroup, azure_region)
 * becomes a generated Secret with the azure.json upstream's credentials-secret controller writes;
 * the operand's generated args, run by bin/hostwarden with that file, log in with the client secret
 * against the ARM emulator, list the zones of the resource group and write the records.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { objectPath } from '../../src/kube/resource.ts';
import { silentLogger } from '../../src/log.ts';
import { ExternalDNSReconciler } from '../../src/operator/reconciler.ts';
import { DEPLOYMENTS, SECRETS } from '../../src/operator/resources.ts';
import { EXTERNALDNSES } from '../../src/operator/types.ts';
import { ArmDnsEmulator } from '../support/azure/arm-dns-emulator.ts';
import { runCli } from '../support/cli.ts';
import { makeSelfSignedCert, opensslUnavailable } from '../support/tls.ts';
import type { SelfSignedCert } from '../support/tls.ts';
import { OPERAND_NS, OPERATOR_NS, startOperatorEnv, installCcoApi } from './harness.ts';
import type { OperatorEnv } from './harness.ts';

const SUB = '00000000-0000-0000-0000-0000000000aa';
const skip = await opensslUnavailable();
const b64 = (v: string): string => Buffer.from(v).toString('base64');

interface Pod {
  containers: { name: string; args: string[]; volumeMounts: { name: string; mountPath: string }[] }[];
  volumes: { name: string; secret?: { secretName: string; items?: { key: string; path: string }[] } }[];
}

describe('Azure on OpenShift: minted Secret to a working operand (ARM emulator)', { skip: skip ?? false }, () => {
  let env: OperatorEnv;
  let cert: SelfSignedCert;
  let emu: ArmDnsEmulator;
  let dir: string;

  before(async () => {
    env = await startOperatorEnv();
    cert = await makeSelfSignedCert();
    emu = await ArmDnsEmulator.start({ subscriptionId: SUB, cert, clientId: 'minted-client', clientSecret: 'minted-secret' });
    emu.addZone('public', 'cluster-rg', 'apps.example.com');
    emu.addZone('public', 'cluster-rg', 'other.example.net');
    emu.addZone('public', 'foreign-rg', 'foreign.example.org');
    dir = await mkdtemp(join(tmpdir(), 'hw-operand-azure-'));
    await installCcoApi(env.client);
    env.api.create({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'web', namespace: 'default' },
      spec: { type: 'LoadBalancer', ports: [{ port: 80 }] },
      status: { loadBalancer: { ingress: [{ ip: '192.0.2.20' }] } },
    });
  });
  after(async () => {
    await env?.stop();
    await emu?.stop();
    await cert?.cleanup();
    await rm(dir, { recursive: true, force: true });
  });

  test('the generated azure.json is accepted: the operand logs in, lists the zones and writes the record', { timeout: 120_000 }, async () => {
    const { client } = env;
    const zoneId = `/subscriptions/${SUB}/resourceGroups/cluster-rg/providers/Microsoft.Network/dnszones/apps.example.com`;
    await client.request('POST', `/apis/${EXTERNALDNSES.apiVersion}/externaldnses`, {
      body: {
        apiVersion: EXTERNALDNSES.apiVersion,
        kind: 'ExternalDNS',
        metadata: { name: 'az' },
        spec: {
          provider: { type: 'Azure' },
          source: { type: 'Service', fqdnTemplate: ['{{.Name}}.apps.example.com', '{{.Name}}.other.example.net'] },
          zones: [zoneId],
        },
      },
    });
    const settings = { ...env.settings, platform: { openshift: true } };
    const r = new ExternalDNSReconciler({ client, logger: silentLogger(), operand: settings, operatorNamespace: OPERATOR_NS });
    await r.reconcile('az');
    // The Cloud Credential Operator mints the Secret the CredentialsRequest names.
    const minted: Record<string, string> = {
      azure_client_id: 'minted-client',
      azure_client_secret: 'minted-secret',
      azure_tenant_id: 'tenant-7',
      azure_subscription_id: SUB,
      azure_resourcegroup: 'cluster-rg',
      azure_region: 'eastus',
    };
    await client.request('POST', `/api/v1/namespaces/${OPERAND_NS}/secrets`, {
      body: {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'hostwarden-az-credentials', namespace: OPERAND_NS },
        data: Object.fromEntries(Object.entries(minted).map(([k, v]) => [k, b64(v)])),
      },
    });
    assert.deepEqual(await r.reconcile('az'), {});

    const generated = await client.request<{ data: Record<string, string> }>('GET', objectPath(SECRETS, OPERAND_NS, 'hostwarden-az-azure-config'));
    const text = Buffer.from(generated.data['azure.json'] ?? '', 'base64').toString();
    assert.equal(
      text,
      `{"aadClientId":"minted-client","aadClientSecret":"minted-secret","resourceGroup":"cluster-rg","subscriptionId":"${SUB}","tenantId":"tenant-7"}`,
    );
    const dep = await client.request<{ spec: { template: { spec: Pod } } }>('GET', objectPath(DEPLOYMENTS, OPERAND_NS, 'hostwarden-az'));
    const pod = dep.spec.template.spec;
    assert.deepEqual(pod.volumes.find((v) => v.name === 'credentials')?.secret, {
      secretName: 'hostwarden-az-azure-config',
      items: [{ key: 'azure.json', path: 'azure.json' }],
    });
    const args = pod.containers[0]?.args ?? [];
    assert.ok(args.includes('--txt-wildcard-replacement=any'));
    assert.ok(args.includes('--azure-config-file=/etc/hostwarden/credentials/azure.json'));
    assert.ok(args.includes(`--zone-id-filter=${zoneId}`));

    // The mounted file as the pod sees it; the emulator plays the cloud's login host and ARM endpoint.
    const file = join(dir, 'azure.json');
    await writeFile(file, JSON.stringify({ ...(JSON.parse(text) as object), activeDirectoryAuthorityHost: emu.url }));
    const kubeconfig = await env.api.writeKubeconfig(dir);
    const runArgs = args.map((a) =>
      a.startsWith('--azure-config-file=') ? `--azure-config-file=${file}` : a.startsWith('--metrics-address=') ? '--metrics-address=' : a,
    );
    const tokens = emu.calls.tokens;
    const run = await runCli([...runArgs, '--once', '--kubeconfig', kubeconfig, '--azure-endpoint', emu.url, '--log-format', 'json'], {
      env: { NODE_EXTRA_CA_CERTS: cert.certFile, HOME: dir },
      timeoutMs: 90_000,
    });
    assert.equal(run.code, 0, run.stderr);
    assert.ok(emu.calls.tokens > tokens, 'logged in with the minted client secret');
    assert.ok(emu.calls.zoneLists > 0, 'listed the zones');
    assert.deepEqual(emu.get('public', 'apps.example.com', 'web', 'A')?.properties['ARecords'], [{ ipv4Address: '192.0.2.20' }]);
    assert.match(JSON.stringify(emu.get('public', 'apps.example.com', 'external-dns-a-web', 'TXT')?.properties ?? {}), /external-dns\/owner=external-dns-az/);
    // The container's zone filter keeps the other zone of the same resource group out.
    assert.equal(emu.get('public', 'other.example.net', 'web', 'A'), undefined);
  });
});
