/**
 * The console's "last hour": 360 ten-second buckets of syncs, changes applied, failed syncs and
 * (embedded provider) DNS queries per second. Fed by the sync hooks and by a ten-second tick that
 * reads the DNS query counter already in the metrics registry, so nothing new is counted twice.
 */
import type { Registry } from 'prom-client';

export const STEP_SECONDS = 10;
export const POINTS = 360;

type Series = 'syncs' | 'changes' | 'errors';

export class ConsoleHistory {
  private readonly buckets: Record<Series, number[]> = { syncs: [], changes: [], errors: [] };
  private readonly queries: number[] = [];
  private bucketStart: number;
  private lastQueryTotal: number | undefined;

  constructor(
    private readonly metrics: Registry | undefined,
    private readonly dns: boolean,
    private readonly now: () => number = Date.now,
  ) {
    this.bucketStart = this.align(now());
    for (const s of Object.values(this.buckets)) s.push(...new Array<number>(POINTS).fill(0));
    this.queries.push(...new Array<number>(POINTS).fill(0));
  }

  count(series: Series, n = 1): void {
    this.roll();
    const s = this.buckets[series];
    s[s.length - 1] = (s.at(-1) ?? 0) + n;
  }

  /** Called every STEP_SECONDS: closes the bucket and samples the DNS query counter. */
  async tick(): Promise<void> {
    if (this.dns && this.metrics !== undefined) {
      const total = await queryTotal(this.metrics);
      const rate = this.lastQueryTotal === undefined ? 0 : Math.max(0, total - this.lastQueryTotal) / STEP_SECONDS;
      this.lastQueryTotal = total;
      this.roll();
      this.queries[this.queries.length - 1] = Math.round(rate * 10) / 10;
    } else this.roll();
  }

  body(): unknown {
    this.roll();
    return {
      stepSeconds: STEP_SECONDS,
      end: this.bucketStart + STEP_SECONDS * 1000,
      series: {
        syncs: [...this.buckets.syncs],
        changes: [...this.buckets.changes],
        errors: [...this.buckets.errors],
        dnsQueries: this.dns ? [...this.queries] : null,
      },
    };
  }

  /** Moves to the bucket of now, with zeros for the steps nothing happened in (at most POINTS). */
  private roll(): void {
    const current = this.align(this.now());
    const steps = Math.min(POINTS, Math.max(0, Math.round((current - this.bucketStart) / (STEP_SECONDS * 1000))));
    if (steps === 0) return;
    for (const s of [...Object.values(this.buckets), this.queries]) {
      s.push(...new Array<number>(steps).fill(0));
      s.splice(0, s.length - POINTS);
    }
    this.bucketStart = current;
  }

  private align(ms: number): number {
    return ms - (ms % (STEP_SECONDS * 1000));
  }
}

async function queryTotal(metrics: Registry): Promise<number> {
  const metric = metrics.getSingleMetric('hostwarden_dns_queries_total');
  if (metric === undefined) return 0;
  const data = await metric.get();
  return data.values.reduce((sum, v) => sum + v.value, 0);
}
