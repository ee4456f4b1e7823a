/** The test API server with the ExternalDNS CRD from deploy/operator, a client, and object helpers. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { KubeClient } from '../../src/kube/client.ts';
import { objectPath } from '../../src/kube/resource.ts';
import { silentLogger } from '../../src/log.ts';
import type { OperandSettings } from '../../src/operator/operand.ts';
import { CCO_NAMESPACE } from '../../src/operator/resources.ts';
import { EXTERNALDNSES } from '../../src/operator/types.ts';
import type { ExternalDNS } from '../../src/operator/types.ts';
import { REPO_ROOT } from '../support/cli.ts';
import { startTestApiServer } from '../support/kube-apiserver/server.ts';
import type { TestApiServer } from '../support/kube-apiserver/server.ts';

export const OPERAND_NS = 'hostwarden';
export const OPERATOR_NS = 'hostwarden-operator';
export const ROLE = 'arn:aws:iam::444455556666:role/external-dns';

/** The objects of one deploy/operator file (JSON, a List or one object, like deploy/admission). */
export function deployDocs(file: string): Record<string, unknown>[] {
  const doc = JSON.parse(readFileSync(join(REPO_ROOT, 'deploy/operator', file), 'utf8')) as Record<string, unknown>;
  return doc['kind'] === 'List' ? (doc['items'] as Record<string, unknown>[]) : [doc];
}

export interface OperatorEnv {
  api: TestApiServer;
  client: KubeClient;
  settings: OperandSettings;
  stop(): Promise<void>;
}

export async function startOperatorEnv(): Promise<OperatorEnv> {
  const api = await startTestApiServer({ namespaces: [OPERAND_NS, OPERATOR_NS], bookmarkIntervalMs: 200 });
  const client = new KubeClient({ config: api.kubeConfig(), logger: silentLogger() });
  const crd = deployDocs('crd.json')[0];
  await client.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crd });
  return {
    api,
    client,
    settings: { namespace: OPERAND_NS, image: 'hostwarden:test', platform: { openshift: false } },
    stop: async () => {
      client.close();
      await api.stop();
    },
  };
}

export function awsExternalDNS(name: string, spec: Partial<NonNullable<ExternalDNS['spec']>> = {}): ExternalDNS {
  return {
    apiVersion: EXTERNALDNSES.apiVersion,
    kind: 'ExternalDNS',
    metadata: { name },
    spec: {
      provider: { type: 'AWS', aws: { credentials: { name: 'aws-creds' }, assumeRole: { arn: ROLE, externalID: 'shared-vpc' } } },
      source: { type: 'Service', fqdnTemplate: ['{{.Name}}.example.org'] },
      zones: ['Z1'],
      ...spec,
    },
  };
}

export function awsSecret(name: string, id = 'AKIDTESTER0000000001', secret = 'tester-secret'): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace: OPERATOR_NS },
    data: { aws_access_key_id: Buffer.from(id).toString('base64'), aws_secret_access_key: Buffer.from(secret).toString('base64') },
  };
}

export async function getExternalDNS(client: KubeClient, name: string): Promise<ExternalDNS> {
  return client.request<ExternalDNS>('GET', objectPath(EXTERNALDNSES, '', name));
}

/** OpenShift's Cloud Credential Operator API: its namespace and the CredentialsRequest CRD. */
export async function installCcoApi(client: KubeClient): Promise<void> {
  await client.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: CCO_NAMESPACE } } });
  await client.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
    body: {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'credentialsrequests.cloudcredential.openshift.io' },
      spec: {
        group: 'cloudcredential.openshift.io',
        scope: 'Namespaced',
        names: { kind: 'CredentialsRequest', plural: 'credentialsrequests', singular: 'credentialsrequest', listKind: 'CredentialsRequestList' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
      },
    },
  });
}
