/** The test API server with the DNSRecord CRD from deploy/dnsrecord, a client, object helpers and a controller runner. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DNSRecordController } from '../../src/dnsrecord/controller.ts';
import type { DNSRecordControllerOptions } from '../../src/dnsrecord/controller.ts';
import { CredentialLimiters } from '../../src/dnsrecord/limiters.ts';
import { DNSRECORDS, SECRETS } from '../../src/dnsrecord/types.ts';
import type { DNSRecord, DNSRecordSpec } from '../../src/dnsrecord/types.ts';
import { KubeClient } from '../../src/kube/client.ts';
import { isStatus } from '../../src/kube/errors.ts';
import { collectionPath, objectPath } from '../../src/kube/resource.ts';
import { silentLogger } from '../../src/log.ts';
import { REPO_ROOT } from '../support/cli.ts';
import { startTestApiServer } from '../support/kube-apiserver/server.ts';
import type { TestApiServer } from '../support/kube-apiserver/server.ts';

export const NS = 'shoot--dev--test';

export function deployJson(file: string): Record<string, unknown> {
  return JSON.parse(readFileSync(join(REPO_ROOT, 'deploy/dnsrecord', file), 'utf8')) as Record<string, unknown>;
}

export interface Env {
  api: TestApiServer;
  client: KubeClient;
  stop(): Promise<void>;
}

export async function startEnv(): Promise<Env> {
  const api = await startTestApiServer({ namespaces: [NS], bookmarkIntervalMs: 200 });
  const client = new KubeClient({ config: api.kubeConfig(), logger: silentLogger() });
  await client.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: deployJson('crd.json') });
  return {
    api,
    client,
    stop: async () => {
      client.close();
      await api.stop();
    },
  };
}

export function dnsRecord(name: string, spec: Partial<DNSRecordSpec> & Pick<DNSRecordSpec, 'type' | 'name'>, annotations?: Record<string, string>): DNSRecord {
  return {
    apiVersion: DNSRECORDS.apiVersion,
    kind: 'DNSRecord',
    metadata: { name, namespace: NS, ...(annotations === undefined ? {} : { annotations }) },
    spec: { secretRef: { name: 'dns-creds' }, recordType: 'A', values: ['192.0.2.10'], ...spec },
  };
}

export async function create(client: KubeClient, rec: DNSRecord): Promise<DNSRecord> {
  return client.request<DNSRecord>('POST', collectionPath(DNSRECORDS, NS), { body: rec });
}

export async function get(client: KubeClient, name: string): Promise<DNSRecord | undefined> {
  try {
    return await client.request<DNSRecord>('GET', objectPath(DNSRECORDS, NS, name));
  } catch (err) {
    if (isStatus(err, 404)) return undefined;
    throw err;
  }
}

export async function patch(client: KubeClient, name: string, body: unknown): Promise<DNSRecord> {
  return client.request<DNSRecord>('PATCH', objectPath(DNSRECORDS, NS, name), { body, contentType: 'application/merge-patch+json' });
}

export async function remove(client: KubeClient, name: string): Promise<void> {
  await client.request('DELETE', objectPath(DNSRECORDS, NS, name));
}

export async function createSecret(client: KubeClient, name: string, data: Record<string, string>): Promise<void> {
  const encoded = Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')]));
  await client.request('POST', collectionPath(SECRETS, NS), { body: { apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: NS }, data: encoded } });
}

/** Polls `check` until it returns something (bounded in time and count). */
export async function waitFor<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (let i = 0; i < 100_000 && Date.now() < deadline; i++) {
    try {
      const v = await check();
      if (v !== undefined) return v;
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}${last === undefined ? '' : ` (last error: ${String(last)})`}`);
}

/** The record once its lastOperation has this type and state for the current generation. */
export function settled(client: KubeClient, name: string, type: string, state: string): Promise<DNSRecord> {
  return waitFor(`${name}: ${type} ${state}`, async () => {
    const r = await get(client, name);
    const op = r?.status?.lastOperation;
    return op?.type === type && op.state === state && r?.status?.observedGeneration === r?.metadata.generation ? r : undefined;
  });
}

export function startController(env: Env, opts: Partial<DNSRecordControllerOptions> & Pick<DNSRecordControllerOptions, 'backends'>): DNSRecordController {
  const controller = new DNSRecordController({
    client: env.client,
    logger: silentLogger(),
    limiters: new CredentialLimiters({ ratePerSecond: 0 }),
    types: Object.keys(opts.backends),
    extensionClasses: [],
    configRetryMs: 200,
    throttleRetryMs: 200,
    backoff: { initialMs: 50, maxMs: 500 },
    ...opts,
  });
  controller.start();
  return controller;
}
