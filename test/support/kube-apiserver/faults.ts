/**
 * Scripted failures for the test API server: the next N matching requests answer with an error
 * status. Watch faults (drop, hang) live with the watch streams in watch.ts.
 */
import { statusObject } from './types.ts';

export interface RequestInfo {
  method: string;
  /** URL path without the query. */
  path: string;
  /** kube verb: get, list, watch, create, update, patch, delete, deletecollection, or '' for non-resource paths. */
  verb: string;
  group: string;
  plural: string;
  namespace: string;
  name: string;
  subresource: string;
}

export type RequestFilter = (req: RequestInfo) => boolean;

interface PlannedFailure {
  remaining: number;
  status: number;
  filter: RequestFilter | undefined;
}

const REASONS: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  409: 'Conflict',
  410: 'Gone',
  422: 'Invalid',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
  504: 'Timeout',
};

export class FaultPlan {
  private readonly planned: PlannedFailure[] = [];

  failNext(n: number, status: number, filter?: RequestFilter): void {
    if (n > 0) this.planned.push({ remaining: n, status, filter });
  }

  /** The Status to answer this request with, consuming one planned failure, if one matches. */
  take(req: RequestInfo): { status: number; body: Record<string, unknown> } | undefined {
    for (let i = 0; i < this.planned.length; i++) {
      const p = this.planned[i]!;
      if (p.filter !== undefined && !p.filter(req)) continue;
      p.remaining--;
      if (p.remaining <= 0) this.planned.splice(i, 1);
      const reason = REASONS[p.status] ?? 'InternalError';
      return { status: p.status, body: statusObject(p.status, reason, `injected failure (${p.status}) for ${req.method} ${req.path}`) };
    }
    return undefined;
  }

  pending(): number {
    return this.planned.reduce((n, p) => n + p.remaining, 0);
  }
}
