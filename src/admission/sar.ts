/**
 * The override check: a SubjectAccessReview through @kubernetes/client-node, cut off after a short
 * timeout. It never throws; a failure or timeout is an answer (`ok: false`) that the decision
 * turns into a denial, so a slow API server cannot let a refused address through.
 */
import { AuthorizationV1Api, Observable } from '@kubernetes/client-node';
import type { KubeConfig, ObservableMiddleware, RequestContext, ResponseContext, V1SubjectAccessReview } from '@kubernetes/client-node';
import { errorMessage } from '../errors.ts';
import type { OverrideAnswer, OverrideQuery } from './decision.ts';

export interface OverrideChecker {
  check(query: OverrideQuery): Promise<OverrideAnswer>;
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

/** Hands the request our abort signal, so a timed-out review also closes its connection. */
function signalMiddleware(signal: AbortSignal): ObservableMiddleware {
  return {
    pre: (ctx: RequestContext) => {
      ctx.setSignal(signal);
      return new Observable(Promise.resolve(ctx));
    },
    post: (ctx: ResponseContext) => new Observable(Promise.resolve(ctx)),
  };
}

export class SubjectAccessReviewChecker implements OverrideChecker {
  private readonly api: AuthorizationV1Api;
  private readonly timeoutMs: number;

  constructor(opts: SubjectAccessReviewCheckerOptions) {
    this.api = opts.config.makeApiClient(AuthorizationV1Api);
    this.timeoutMs = opts.timeoutMs;
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
      .createSubjectAccessReview({ body: subjectAccessReviewBody(query) }, { middleware: [signalMiddleware(abort.signal)], middlewareMergeStrategy: 'append' })
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
