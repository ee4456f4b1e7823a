/**
 * The admission webhook over HTTPS: AdmissionReview admission.k8s.io/v1 POSTed to
 * /validate-services-externalips (or /), plus /healthz and /metrics. Fails closed: a body that
 * cannot be read or an override check that fails is answered with a denial that says why, and no
 * request can take the process down.
 */
import { createServer } from 'node:https';
import type { Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry as MetricsRegistry } from 'prom-client';
import { errorMessage } from '../errors.ts';
import type { Logger } from '../log.ts';
import { applyOverride, decide, malformed, overrideQuery } from './decision.ts';
import type { AdmissionRequest, Decision } from './decision.ts';
import type { AdmissionMetrics } from './metrics.ts';
import type { ExternalIPPolicy } from './policy.ts';
import { readReview, writeReview } from './review.ts';
import type { OverrideChecker } from './sar.ts';
import type { TlsMaterial } from './tls.ts';
import { closeServer, listen } from '../http/listen.ts';

export const WEBHOOK_PATH = '/validate-services-externalips';
/** An AdmissionReview holds the object twice (object, oldObject); Kubernetes objects stay under 1.5 MiB. */
export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;

export interface AdmissionServerOptions {
  /** The policy in force now; read per request, so a live source can replace it. */
  policy: () => ExternalIPPolicy;
  checker: OverrideChecker;
  tls: TlsMaterial;
  logger: Logger;
  registry: MetricsRegistry;
  metrics: AdmissionMetrics;
  maxBodyBytes?: number;
  /** Time allowed to receive a whole request. */
  readTimeoutMs?: number;
}

export class AdmissionServer {
  private readonly opts: AdmissionServerOptions;
  private readonly log: Logger;
  private readonly maxBodyBytes: number;
  private server: Server | undefined;

  constructor(opts: AdmissionServerOptions) {
    this.opts = opts;
    this.log = opts.logger;
    this.maxBodyBytes = opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    opts.metrics.certificateExpiry.set(opts.tls.notAfter);
  }

  async start(host: string, port: number): Promise<AddressInfo> {
    const server = createServer({ key: this.opts.tls.key, cert: this.opts.tls.cert }, (req, res) => {
      this.handle(req, res).catch((err: unknown) => {
        this.log.error({ err: errorMessage(err) }, 'admission request failed unexpectedly');
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('internal error\n');
        else res.destroy();
      });
    });
    server.requestTimeout = this.opts.readTimeoutMs ?? 10_000;
    server.headersTimeout = this.opts.readTimeoutMs ?? 10_000;
    server.on('tlsClientError', (err) => this.log.debug({ err: errorMessage(err) }, 'TLS handshake failed'));
    this.server = server;
    const address = await listen(server, host, port);
    this.log.info({ address: `${address.address}:${address.port}`, path: WEBHOOK_PATH }, 'admission webhook listening (HTTPS)');
    return address;
  }

  /** New connections get the new certificate; open ones keep theirs. */
  setCertificate(material: TlsMaterial): void {
    this.server?.setSecureContext({ key: material.key, cert: material.cert });
    this.opts.metrics.certificateReloads.inc();
    this.opts.metrics.certificateExpiry.set(material.notAfter);
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (server === undefined) return;
    this.server = undefined;
    await closeServer(server);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/healthz' || path === '/readyz') {
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end('ok\n');
      return;
    }
    if (path === '/metrics') {
      const text = await this.opts.registry.metrics();
      res.writeHead(200, { 'content-type': this.opts.registry.contentType }).end(text);
      return;
    }
    if (path !== WEBHOOK_PATH && path !== '/') {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found\n');
      return;
    }
    if (req.method !== 'POST') {
      res.writeHead(405, { allow: 'POST', 'content-type': 'text/plain; charset=utf-8' }).end('POST an AdmissionReview\n');
      return;
    }
    const body = await this.readBody(req);
    if (body === undefined) {
      res.writeHead(413, { 'content-type': 'text/plain; charset=utf-8', connection: 'close' }).end(`request body larger than ${this.maxBodyBytes} bytes: denied\n`);
      return;
    }
    const started = process.hrtime.bigint();
    const read = readReview(body);
    let uid: string;
    let decision: Decision;
    let asked = false;
    if (!read.ok) {
      uid = read.uid;
      decision = malformed(`the admission webhook could not read the request, so it is denied: ${read.error}`);
    } else {
      uid = read.request.uid;
      decision = decide(this.opts.policy(), read.request);
      if (decision.needsOverrideCheck) {
        asked = true;
        const answer = await this.opts.checker.check(overrideQuery(read.request));
        this.opts.metrics.overrideChecks.inc({ result: !answer.ok ? 'error' : answer.allowed ? 'allowed' : 'denied' });
        decision = applyOverride(decision, answer);
      }
    }
    const payload = writeReview(uid, decision);
    res.writeHead(200, { 'content-type': 'application/json' }).end(payload);
    this.opts.metrics.decisions.inc({ result: decision.allowed ? 'allowed' : 'denied', reason: decision.reason });
    this.opts.metrics.latency.observe({ override_check: asked ? 'yes' : 'no' }, Number(process.hrtime.bigint() - started) / 1e9);
    this.logDecision(read.ok ? read.request : undefined, decision);
  }

  private logDecision(req: AdmissionRequest | undefined, d: Decision): void {
    if (d.reason === 'not-applicable' || d.reason === 'no-external-ips' || d.reason === 'within-policy') {
      if (this.log.isLevelEnabled('debug')) this.log.debug({ uid: req?.uid, namespace: req?.namespace, service: req?.name, reason: d.reason }, 'admitted');
      return;
    }
    const fields = { uid: req?.uid, namespace: req?.namespace, service: req?.name, user: req?.userInfo?.username, reason: d.reason };
    if (d.allowed) this.log.info({ ...fields, warning: d.warnings[0] }, 'externalIPs admitted by the override');
    else this.log.info({ ...fields, message: d.message }, 'denied');
  }

  /** The body as text, or undefined when it is larger than allowed. */
  private readBody(req: IncomingMessage): Promise<string | undefined> {
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      let over = false;
      req.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > this.maxBodyBytes) over = true;
        else chunks.push(chunk);
      });
      req.on('end', () => resolve(over ? undefined : Buffer.concat(chunks).toString('utf8')));
      req.on('error', reject);
    });
  }
}
