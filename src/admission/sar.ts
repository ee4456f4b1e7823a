/**
 * The override check: a SubjectAccessReview through @kubernetes/client-node, cut off after a short
 * timeout. It never throws; a failure or timeout is an answer (`ok: false`) that the decision
 * turns into a denial, so a slow API server cannot let a refused address through.
 */
// Types only at load time: client-node takes seconds to import, and only this command needs it.
import type { AuthorizationV1Api, KubeConfig, Observable, ObservableMiddleware, RequestContext, ResponseContext, V1SubjectAccessReview } from '@kubernetes/client-node';
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { errorMessage } from '../errors.ts';
import type { OverrideAnswer, OverrideQuery } from './decision.ts';

export interface OverrideChecker {
  check(query: OverrideQuery): Promise<OverrideAnswer>;
  close(): void;
}

/** Without an API server to ask: every override check fails, so refusals stand. */
export class NoOverrideChecker implements OverrideChecker {
  constructor(private readonly why: string) {}
  async check(): Promise<OverrideAnswer> {
    return { ok: false, error: this.why };
  }
  close(): void {}
}

export interface SubjectAccessReviewCheckerOptions {
  config: KubeConfig;
  timeoutMs: number;
}

export function subjectAccessReviewBody(q: OverrideQuery): V1SubjectAccessReview {
  return {
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SubjectAccessReview',
    spec: {
      user: q.user,
      ...(q.uid === undefined ? {} : { uid: q.uid }),
      groups: q.groups,
      ...(q.extra === undefined ? {} : { extra: q.extra }),
      resourceAttributes: { namespace: q.namespace, verb: q.verb, group: q.group, resource: q.resource, subresource: q.subresource },
    },
  };
}

type ObservableClass = typeof Observable;

/**
 * Hands the request our abort signal, so a timed-out review also closes its connection, and a
 * shared keep-alive agent: client-node makes a new agent per request, which would cost a TCP and
 * TLS handshake on every review.
 */
function requestMiddleware(ObservableImpl: ObservableClass, signal: AbortSignal, shared: (fresh: HttpAgent | undefined) => HttpAgent | undefined): ObservableMiddleware {
  return {
    pre: (ctx: RequestContext) => {
      ctx.setSignal(signal);
      const agent = shared(ctx.getAgent());
      if (agent !== undefined) ctx.setAgent(agent);
      return new ObservableImpl(Promise.resolve(ctx));
    },
    post: (ctx: ResponseContext) => new ObservableImpl(Promise.resolve(ctx)),
  };
}

export class SubjectAccessReviewChecker implements OverrideChecker {
  private readonly api: AuthorizationV1Api;
  private readonly observable: ObservableClass;
  private readonly timeoutMs: number;
  private agent: HttpAgent | undefined;

  constructor(api: AuthorizationV1Api, observable: ObservableClass, timeoutMs: number) {
    this.api = api;
    this.observable = observable;
    this.timeoutMs = timeoutMs;
  }

  static async create(opts: SubjectAccessReviewCheckerOptions): Promise<SubjectAccessReviewChecker> {
    const clientNode = await import('@kubernetes/client-node');
    return new SubjectAccessReviewChecker(opts.config.makeApiClient(clientNode.AuthorizationV1Api), clientNode.Observable, opts.timeoutMs);
  }

  close(): void {
    this.agent?.destroy();
    this.agent = undefined;
  }

  private sharedAgent(fresh: HttpAgent | undefined): HttpAgent | undefined {
    this.agent ??= keepAliveLike(fresh);
    if (this.agent !== undefined && fresh !== undefined && fresh !== this.agent) fresh.destroy();
    return this.agent ?? fresh;
  }

  async check(query: OverrideQuery): Promise<OverrideAnswer> {
    const abort = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<OverrideAnswer>((resolve) => {
      timer = setTimeout(() => {
        abort.abort();
        resolve({ ok: false, error: `the SubjectAccessReview got no answer within ${this.timeoutMs} ms` });
      }, this.timeoutMs);
    });
    const asked = this.api
      .createSubjectAccessReview({ body: subjectAccessReviewBody(query) }, { middleware: [requestMiddleware(this.observable, abort.signal, (fresh) => this.sharedAgent(fresh))], middlewareMergeStrategy: 'append' })
      .then((review): OverrideAnswer => {
        const status = review.status;
        if (status === undefined) return { ok: false, error: 'the SubjectAccessReview came back without a status' };
        if (status.evaluationError !== undefined && status.evaluationError !== '' && !status.allowed) {
          return { ok: true, allowed: false, reason: `evaluation error: ${status.evaluationError}` };
        }
        return { ok: true, allowed: status.allowed && status.denied !== true, ...(status.reason === undefined ? {} : { reason: status.reason }) };
      })
      .catch((err: unknown): OverrideAnswer => ({ ok: false, error: `the SubjectAccessReview failed: ${shortError(err)}` }));
    try {
      return await Promise.race([asked, timedOut]);
    } finally {
      clearTimeout(timer);
    }
  }
}

/** Plain agents only (proxy agents are kept as client-node made them); TLS options are fixed per kubeconfig. */
function keepAliveLike(fresh: HttpAgent | undefined): HttpAgent | undefined {
  const base = { keepAlive: true, maxSockets: 64 };
  if (fresh instanceof HttpsAgent && Object.getPrototypeOf(fresh) === HttpsAgent.prototype) return new HttpsAgent({ ...fresh.options, ...base });
  if (fresh !== undefined && Object.getPrototypeOf(fresh) === HttpAgent.prototype) return new HttpAgent(base);
  return undefined;
}

function shortError(err: unknown): string {
  const code = (err as { code?: unknown }).code;
  if (typeof code !== 'number') return (errorMessage(err).split('\n')[0] ?? '').slice(0, 200);
  // client-node's ApiException message repeats the whole body; the Status message is what helps.
  const body = (err as { body?: unknown }).body;
  let detail = '';
  try {
    const parsed = (typeof body === 'string' ? JSON.parse(body) : body) as { message?: unknown } | undefined;
    if (typeof parsed?.message === 'string') detail = `: ${parsed.message}`;
  } catch {
    // not a Status object
  }
  return `HTTP ${code}${detail}`.slice(0, 200);
}
