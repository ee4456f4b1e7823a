/**
 * The override check: a SubjectAccessReview to the API server, cut off after a short
 * timeout. It never throws; a failure or timeout is an answer (`ok: false`) that the decision
 * turns into a denial, so a slow API server cannot let a refused address through.
 */
// Types only at load time: client-node takes seconds to import, and only this command needs it.
import type { KubeConfig, V1SubjectAccessReview } from '@kubernetes/client-node';
import { errorMessage } from '../errors.ts';
import { KubeClient } from '../kube/client.ts';
import { KubeApiError } from '../kube/errors.ts';
import type { Logger } from '../log.ts';
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
  logger: Logger;
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
      // No namespace: a cluster-wide question, which only cluster-wide grants answer.
      resourceAttributes: { verb: q.verb, group: q.group, resource: q.resource, subresource: q.subresource },
    },
  };
}

/** The part of a SubjectAccessReview answer the override needs. */
interface ReviewStatus {
  status?: { allowed?: boolean; denied?: boolean; reason?: string; evaluationError?: string };
}

const REVIEW_PATH = '/apis/authorization.k8s.io/v1/subjectaccessreviews';

/**
 * Asks through the project's Kubernetes client (client-node's configuration and credentials, one
 * keep-alive connection): client-node's own API classes cost about 1.5 ms of CPU per review in
 * serialisation and middleware, most of the webhook's budget.
 */
export class SubjectAccessReviewChecker implements OverrideChecker {
  private readonly client: KubeClient;
  private readonly timeoutMs: number;

  constructor(client: KubeClient, timeoutMs: number) {
    this.client = client;
    this.timeoutMs = timeoutMs;
  }

  static async create(opts: SubjectAccessReviewCheckerOptions): Promise<SubjectAccessReviewChecker> {
    return new SubjectAccessReviewChecker(new KubeClient({ config: opts.config, logger: opts.logger, requestTimeoutMs: opts.timeoutMs }), opts.timeoutMs);
  }

  close(): void {
    this.client.close();
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
    const asked = this.client
      .request<ReviewStatus>('POST', REVIEW_PATH, { body: subjectAccessReviewBody(query), signal: abort.signal, timeoutMs: this.timeoutMs })
      .then((review): OverrideAnswer => {
        const status = review?.status;
        if (status === undefined) return { ok: false, error: 'the SubjectAccessReview came back without a status' };
        const allowed = status.allowed === true;
        if (status.evaluationError !== undefined && status.evaluationError !== '' && !allowed) {
          return { ok: true, allowed: false, reason: `evaluation error: ${status.evaluationError}` };
        }
        return { ok: true, allowed: allowed && status.denied !== true, ...(status.reason === undefined ? {} : { reason: status.reason }) };
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
  if (err instanceof KubeApiError && err.status > 0) {
    // The client's message repeats method and path; the status and the Status message are what help.
    const detail = err.message.split(`${err.status} ${err.reason}`)[1] ?? '';
    return `HTTP ${err.status}${detail}`.slice(0, 200);
  }
  return (errorMessage(err).split('\n')[0] ?? '').slice(0, 200);
}
