/**
 * Helpers for the admission webhook tests and benchmark: certificates made with openssl, a
 * kubeconfig for the test API server, the webhook built from command-line flags exactly as
 * `hostwarden admission-webhook` builds it, and an HTTPS client that verifies the certificate.
 */
import { X509Certificate } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { request } from 'node:https';
import type { Agent } from 'node:https';
import { join } from 'node:path';
import type { Registry as MetricsRegistry } from 'prom-client';
import { AdmissionWebhook } from '../../src/admission/webhook.ts';
import { resolveConfig } from '../../src/config/config.ts';
import { FLAGS } from '../../src/config/flags.ts';
import { parseArgs } from '../../src/config/parse.ts';
import { EXTRA_FLAGS, PROVIDER_NAMES, SOURCE_NAMES } from '../../src/cli/wiring.ts';
import type { Logger } from '../../src/log.ts';
import { opensslUnavailable, writeSelfSignedCert } from '../support/tls.ts';

export async function opensslMissing(): Promise<string | false> {
  return (await opensslUnavailable()) ?? false;
}

/** Writes `<name>.crt` and `<name>.key` (self-signed, for 127.0.0.1 and localhost) into `dir`. */
export async function makeCert(dir: string, name: string): Promise<{ certFile: string; keyFile: string }> {
  const certFile = join(dir, `${name}.crt`);
  const keyFile = join(dir, `${name}.key`);
  await writeSelfSignedCert(name, certFile, keyFile);
  return { certFile, keyFile };
}

export function fingerprint(pem: Buffer | string): string {
  return new X509Certificate(pem).fingerprint256;
}

/** A kubeconfig file for an http:// test server (client-node needs skip-tls-verify for http). */
export async function writeKubeconfig(dir: string, server: string): Promise<string> {
  const path = join(dir, 'kubeconfig.json');
  const doc = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 't', cluster: { server, 'insecure-skip-tls-verify': true } }],
    users: [{ name: 't', user: { token: 'test-token' } }],
    contexts: [{ name: 't', context: { cluster: 't', user: 't' } }],
    'current-context': 't',
  };
  await writeFile(path, JSON.stringify(doc), { mode: 0o600 });
  return path;
}

export async function startWebhook(args: string[], logger: Logger, registry?: MetricsRegistry): Promise<{ webhook: AdmissionWebhook; port: number }> {
  const parsed = parseArgs(['--listen', '127.0.0.1:0', ...args], {}, [...FLAGS, ...EXTRA_FLAGS]);
  const cfg = resolveConfig(parsed, { sources: SOURCE_NAMES, providers: PROVIDER_NAMES });
  const webhook = await AdmissionWebhook.fromConfig(cfg, { logger, env: {}, ...(registry === undefined ? {} : { registry }) });
  const { port } = await webhook.start();
  return { webhook, port };
}

export interface HttpsAnswer {
  status: number;
  body: string;
  /** SHA-256 fingerprint of the certificate the server presented. */
  peer: string;
}

/** One request over a new TLS connection (unless an agent is given), trusting only `ca` ('insecure': anything). */
export function httpsCall(
  port: number,
  ca: Buffer | 'insecure',
  opts: { method?: string; path?: string; body?: string; agent?: Agent } = {},
): Promise<HttpsAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: opts.method ?? 'POST',
        path: opts.path ?? '/validate-services-externalips',
        ...(ca === 'insecure' ? { rejectUnauthorized: false } : { ca }),
        agent: opts.agent ?? false,
        headers: opts.body === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(opts.body) },
        timeout: 10_000,
      },
      (res) => {
        const peer = (res.socket as unknown as { getPeerCertificate?: () => { fingerprint256?: string } }).getPeerCertificate?.().fingerprint256 ?? '';
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, peer }));
      },
    );
    req.on('timeout', () => req.destroy(new Error('no answer within 10 s')));
    req.on('error', reject);
    req.end(opts.body);
  });
}

export interface ReviewSpec {
  uid?: string;
  operation?: string;
  externalIPs?: string[];
  type?: string;
  oldIngressIp?: string;
  user?: string;
  groups?: string[];
  name?: string;
  namespace?: string;
}

/** A real AdmissionReview admission.k8s.io/v1 for a Service, as kube-apiserver sends it. */
export function serviceReview(spec: ReviewSpec): string {
  const operation = spec.operation ?? 'CREATE';
  const name = spec.name ?? 'web';
  const namespace = spec.namespace ?? 'apps';
  const svc = (ingress?: string): Record<string, unknown> => ({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace, uid: 'svc-uid' },
    spec: {
      type: spec.type ?? 'ClusterIP',
      ports: [{ port: 80, protocol: 'TCP', targetPort: 8080 }],
      ...(spec.externalIPs === undefined ? {} : { externalIPs: spec.externalIPs }),
    },
    status: ingress === undefined ? {} : { loadBalancer: { ingress: [{ ip: ingress }] } },
  });
  return JSON.stringify({
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: spec.uid ?? 'req-1',
      kind: { group: '', version: 'v1', kind: 'Service' },
      resource: { group: '', version: 'v1', resource: 'services' },
      requestKind: { group: '', version: 'v1', kind: 'Service' },
      requestResource: { group: '', version: 'v1', resource: 'services' },
      name,
      namespace,
      operation,
      userInfo: {
        username: spec.user ?? 'alice',
        uid: 'uid-alice',
        groups: spec.groups ?? ['system:authenticated'],
        extra: { 'authentication.kubernetes.io/credential-id': ['X509SHA256=abc'] },
      },
      object: svc(),
      oldObject: operation === 'UPDATE' ? svc(spec.oldIngressIp) : null,
      dryRun: false,
      options: { apiVersion: 'meta.k8s.io/v1', kind: operation === 'UPDATE' ? 'UpdateOptions' : 'CreateOptions' },
    },
  });
}

export interface ReviewResponse {
  uid: string;
  allowed: boolean;
  status?: {
    code: number;
    reason: string;
    message: string;
    details?: { name?: string; group?: string; kind?: string; causes?: { reason: string; field: string; message: string }[] };
  };
  warnings?: string[];
}

export function responseOf(answer: HttpsAnswer): ReviewResponse {
  const doc = JSON.parse(answer.body) as { apiVersion: string; kind: string; response: ReviewResponse };
  if (doc.apiVersion !== 'admission.k8s.io/v1' || doc.kind !== 'AdmissionReview') throw new Error(`not an AdmissionReview: ${answer.body}`);
  return doc.response;
}
