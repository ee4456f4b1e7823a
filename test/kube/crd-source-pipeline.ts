/**
 * A Kubernetes source synced by the real controller through the TXT registry into a fresh
 * inmemory zone (example.org), with record Events written to the test API server: what the
 * ingress-controller CRD source tests (ambassador-host, kong-tcpingress, skipper-routegroup) share.
 */
import assert from 'node:assert/strict';
import { Controller } from '../../src/controller/controller.ts';
import { RecordEventReporter } from '../../src/controller/record-events.ts';
import { AllDomainFilters } from '../../src/endpoint/domain-filter.ts';
import type { KubeClient } from '../../src/kube/client.ts';
import { EventRecorder } from '../../src/kube/events.ts';
import type { Logger } from '../../src/log.ts';
import { InMemoryProvider } from '../../src/provider/inmemory/inmemory.ts';
import { TXTRegistry } from '../../src/registry/txt/txt-registry.ts';
import type { KubeObjectSource } from '../../src/source/kube/kube-source.ts';
import { waitFor } from './harness.ts';

export interface Pipeline {
  /** Non-TXT records as `name type targets ttl`, sorted. */
  records: () => Promise<string[]>;
  close: () => Promise<void>;
}

export function syncPipeline(source: KubeObjectSource, writer: KubeClient, logger: Logger): Pipeline {
  const provider = new InMemoryProvider({ zones: ['example.org'] });
  const registry = new TXTRegistry(provider, { ownerId: 'hw', managedRecordTypes: ['A', 'AAAA', 'CNAME'], excludeRecordTypes: [], logger });
  const recorder = new EventRecorder({ client: writer, logger, instance: 'hw' });
  const reporter = new RecordEventReporter({ recorder, enabled: new Set(['RecordReady', 'RecordDeleted', 'RecordError']) });
  const controller = new Controller({
    source,
    registry,
    plan: { policy: 'sync', managedRecordTypes: ['A', 'AAAA', 'CNAME'], excludeRecordTypes: [], domainFilter: new AllDomainFilters([]), migrateFromOwner: '' },
    intervalMs: 60_000,
    minEventSyncIntervalMs: 20,
    dryRun: false,
    logger,
    backoff: { initialMs: 50, maxMs: 500 },
    onSynced: (r) => reporter.onSynced(r),
  });
  const stop = new AbortController();
  const loop = controller.run(stop.signal);
  return {
    records: async () =>
      (await registry.records())
        .filter((e) => e.recordType !== 'TXT')
        .map((e) => `${e.dnsName} ${e.recordType} ${[...e.targets].sort().join(',')} ${e.recordTTL}`)
        .sort(),
    close: async () => {
      stop.abort();
      await loop;
      await source.close();
      await recorder.flush();
    },
  };
}

/** Waits until `records()` is `expected` (any order); fails showing both. */
export async function until(what: string, records: () => Promise<string[]>, expected: string[], timeoutMs = 20_000): Promise<void> {
  const want = JSON.stringify([...expected].sort());
  await waitFor(what, async () => (JSON.stringify(await records()) === want ? true : undefined), timeoutMs).catch(async (err: unknown) => {
    assert.deepEqual(await records(), [...expected].sort(), String(err));
    throw err;
  });
}
