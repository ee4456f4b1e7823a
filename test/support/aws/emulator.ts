/**
 * One local HTTP server for AWS service emulators. Requests are routed by the service named in
 * the SigV4 credential scope of the Authorization header (`…/us-east-1/route53/aws4_request`),
 * so EC2, ELBv2 and others can be added as more handlers. An unsigned request (except the ones a
 * service takes unsigned, such as STS AssumeRoleWithWebIdentity) or an unknown access key is
 * refused as AWS would refuse it; with `verifySignatures` the SigV4 signature is checked against
 * the access key's secret too (SignatureDoesNotMatch). Every request is
 * counted by operation, and faults (throttling) can be queued for the next matching requests.
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { awsPartition, route53RegionOfPartition } from '../../../src/aws/partition.ts';
import { sigv4Problem } from './sigv4.ts';
import { el } from './xml.ts';

export interface EmulatedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  body: string;
  headers: IncomingMessage['headers'];
  accessKeyId: string;
  /** ARN of the caller: a user, or an assumed-role session. */
  principal: string;
  /** The caller's account: resources it creates belong there. */
  account: string;
  region: string;
}

export interface EmulatedResponse {
  status: number;
  body: string;
  contentType?: string;
}

/** One emulated service. `operation` names the request for counting and faults before handling. */
export interface ServiceHandler {
  readonly service: string;
  operation(req: EmulatedRequest): string;
  handle(req: EmulatedRequest, op: string): EmulatedResponse | Promise<EmulatedResponse>;
  /** The XML error document in the service's protocol. */
  error(status: number, code: string, message: string): EmulatedResponse;
  /** True for a request the service takes unsigned (STS AssumeRoleWithWebIdentity). */
  anonymous?(req: EmulatedRequest): boolean;
}

export interface Identity {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  arn: string;
  account: string;
  /** The partition the key belongs to (`aws` when absent); it is unknown in every other one. */
  partition?: string;
}

export interface Fault {
  code: string;
  message?: string;
  status?: number;
  /** Operations it applies to (all when empty). */
  operations?: readonly string[];
  /** How many matching requests fail. */
  count: number;
  /**
   * The request takes effect and only its answer is lost (a timeout or a crash after AWS acted),
   * so a retry or a re-run meets what the first attempt created.
   */
  afterApplying?: boolean;
}

/** Returns false to refuse `action` (`route53:ListHostedZones`) to `principal`. */
export type Authorizer = (principal: string, action: string) => boolean;

export class AwsEmulator {
  readonly identities = new Map<string, Identity>();
  /** Requests by `service:Operation`. */
  readonly calls = new Map<string, number>();
  /** Every request's service, operation and caller, in order. */
  readonly log: { service: string; operation: string; principal: string; region: string }[] = [];
  authorize: Authorizer = () => true;
  /** Check each SigV4 signature against the named access key's secret (off: only the key is checked). */
  verifySignatures = false;
  /**
   * Refuse Route53 requests not signed for the partition's Route53 region (us-east-1,
   * cn-northwest-1, us-gov-west-1 …), as AWS does. Off by default: other clients here point the
   * SDK at the emulator with their own region, which the real endpoint rules would not sign with.
   */
  route53HomeRegion = false;
  private readonly services = new Map<string, ServiceHandler>();
  private readonly faults: Fault[] = [];
  private server: Server | undefined;
  private baseUrl = '';

  /** The access key every test client may use: `arn:aws:iam::111122223333:user/tester`. */
  readonly rootIdentity: Identity = {
    accessKeyId: 'AKIDTESTER0000000001',
    secretAccessKey: 'tester-secret',
    arn: 'arn:aws:iam::111122223333:user/tester',
    account: '111122223333',
  };

  constructor() {
    this.addIdentity(this.rootIdentity);
  }

  get url(): string {
    return this.baseUrl;
  }

  register(handler: ServiceHandler): void {
    this.services.set(handler.service, handler);
  }

  addIdentity(identity: Identity): void {
    this.identities.set(identity.accessKeyId, identity);
  }

  /**
   * A user in `account` (`arn:aws:iam::<account>:user/<userName>`) with its own access key, so a
   * test can act as several accounts (a hub and its clusters' accounts) against one emulator.
   */
  addAccount(account: string, userName = 'tester', opts: { partition?: string } = {}): Identity {
    if (!/^\d{12}$/.test(account)) throw new Error(`an AWS account id has 12 digits: ${account}`);
    const partition = opts.partition ?? 'aws';
    const identity: Identity = {
      accessKeyId: `AKID${account}${String(this.identities.size).padStart(4, '0')}`,
      secretAccessKey: `secret-${account}-${userName}`,
      arn: `arn:${partition}:iam::${account}:user/${userName}`,
      account,
      partition,
    };
    this.addIdentity(identity);
    return identity;
  }

  /** Session credentials for an assumed role, as STS would issue them. */
  issueSession(roleArn: string, sessionName: string): Identity {
    const account = roleArn.split(':')[4] ?? '111122223333';
    const partition = roleArn.split(':')[1] ?? 'aws';
    const roleName = roleArn.split('/').slice(1).join('/');
    const identity: Identity = {
      accessKeyId: `ASIA${randomBytes(8).toString('hex').toUpperCase()}`,
      secretAccessKey: randomBytes(20).toString('base64'),
      sessionToken: randomBytes(32).toString('base64'),
      arn: `arn:${partition}:sts::${account}:assumed-role/${roleName}/${sessionName}`,
      account,
      partition,
    };
    this.addIdentity(identity);
    return identity;
  }

  fail(fault: Fault): void {
    this.faults.push({ ...fault });
  }

  /** Drops the faults still queued. */
  clearFaults(): void {
    this.faults.length = 0;
  }

  count(service: string, operation?: string): number {
    let n = 0;
    for (const [key, v] of this.calls) if (operation === undefined ? key.startsWith(`${service}:`) : key === `${service}:${operation}`) n += v;
    return n;
  }

  resetCounts(): void {
    this.calls.clear();
    this.log.length = 0;
  }

  async start(): Promise<string> {
    const server = createServer((req, res) => void this.onRequest(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.server = server;
    this.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return this.baseUrl;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (server === undefined) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private async onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const reply = (r: EmulatedResponse): void => {
      res.writeHead(r.status, { 'content-type': r.contentType ?? 'text/xml', 'x-amzn-requestid': randomBytes(8).toString('hex') });
      res.end(r.body);
    };
    const scope = /Credential=([^/]+)\/\d{8}\/([^/]+)\/([^/]+)\/aws4_request/.exec(String(req.headers.authorization ?? ''));
    if (scope === null) {
      await this.onUnsigned(req, Buffer.concat(chunks).toString('utf8'), reply);
      return;
    }
    const [, accessKeyId = '', region = '', service = ''] = scope;
    const handler = this.services.get(service);
    if (handler === undefined) {
      reply({ status: 400, body: genericError('UnknownService', `no emulator for service ${service}`) });
      return;
    }
    const identity = this.identities.get(accessKeyId);
    if (identity === undefined) {
      reply(handler.error(403, 'InvalidClientTokenId', 'The security token included in the request is invalid.'));
      return;
    }
    // Keys and session tokens exist in one partition only: elsewhere AWS does not know them.
    const unknownHere = awsPartition(region) !== (identity.partition ?? 'aws');
    if (unknownHere || (identity.sessionToken !== undefined && req.headers['x-amz-security-token'] !== identity.sessionToken)) {
      reply(handler.error(403, 'InvalidClientTokenId', 'The security token included in the request is invalid.'));
      return;
    }
    if (this.verifySignatures) {
      const problem = sigv4Problem(
        { method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') },
        identity.secretAccessKey,
      );
      if (problem !== undefined) {
        reply(handler.error(403, 'SignatureDoesNotMatch', problem));
        return;
      }
    }
    const home = route53RegionOfPartition(identity.partition ?? 'aws');
    if (service === 'route53' && this.route53HomeRegion && region !== home) {
      reply(handler.error(403, 'SignatureDoesNotMatch', `Credential should be scoped to a valid region, not '${region}'. `));
      return;
    }
    const url = new URL(req.url ?? '/', 'http://localhost');
    const request: EmulatedRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: url.searchParams,
      body: Buffer.concat(chunks).toString('utf8'),
      headers: req.headers,
      accessKeyId,
      principal: identity.arn,
      account: identity.account,
      region,
    };
    let op: string;
    try {
      op = handler.operation(request);
    } catch (err) {
      reply(handler.error(400, 'InvalidAction', (err as Error).message));
      return;
    }
    const key = `${service}:${op}`;
    this.calls.set(key, (this.calls.get(key) ?? 0) + 1);
    this.log.push({ service, operation: op, principal: identity.arn, region });
    const fault = this.faults.find((f) => f.count > 0 && (f.operations === undefined || f.operations.length === 0 || f.operations.includes(op)));
    if (fault !== undefined) {
      fault.count--;
      if (fault.afterApplying === true) await Promise.resolve(handler.handle(request, op)).catch(() => undefined);
      reply(handler.error(fault.status ?? 400, fault.code, fault.message ?? 'Rate exceeded'));
      return;
    }
    if (!this.authorize(identity.arn, `${service}:${op}`)) {
      reply(handler.error(403, 'AccessDenied', `User: ${identity.arn} is not authorized to perform: ${service}:${op}`));
      return;
    }
    try {
      reply(await handler.handle(request, op));
    } catch (err) {
      reply(handler.error(500, 'InternalFailure', (err as Error).message));
    }
  }

  /** An unsigned request: served only by a service that takes it unsigned, as an anonymous caller. */
  private async onUnsigned(req: IncomingMessage, body: string, reply: (r: EmulatedResponse) => void): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const request: EmulatedRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: url.searchParams,
      body,
      headers: req.headers,
      accessKeyId: '',
      principal: '',
      account: '',
      region: '',
    };
    // anonymous() must not throw: an unsigned request with no Action at all is simply refused.
    const handler = [...this.services.values()].find((h) => h.anonymous?.(request) === true);
    if (handler === undefined) {
      reply({ status: 403, body: genericError('MissingAuthenticationToken', 'Request is missing Authentication Token') });
      return;
    }
    let op: string;
    try {
      op = handler.operation(request);
    } catch (err) {
      reply(handler.error(400, 'InvalidAction', (err as Error).message));
      return;
    }
    const key = `${handler.service}:${op}`;
    this.calls.set(key, (this.calls.get(key) ?? 0) + 1);
    this.log.push({ service: handler.service, operation: op, principal: '', region: '' });
    try {
      reply(await handler.handle(request, op));
    } catch (err) {
      reply(handler.error(500, 'InternalFailure', (err as Error).message));
    }
  }
}

function genericError(code: string, message: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?><ErrorResponse>${el('Error', [el('Type', 'Sender'), el('Code', code), el('Message', message)])}</ErrorResponse>`;
}
