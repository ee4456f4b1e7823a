/**
 * One zone's record changes sent as external-dns sends them: batch requests of deletes, then puts,
 * then posts (the order Cloudflare runs a batch in), at most max(--batch-change-size, 200)
 * operations each but never more than the zone's plan takes (planBatchLimit), --batch-change-interval
 * apart. A batch is all or nothing: when one fails,
 * its changes are replayed one request each (deletes, updates, creates), so every valid change
 * lands and each refused one is reported alone with Cloudflare's reason. CAA updates, which
 * external-dns's batch put cannot carry, go one request each. A delete or update always names the
 * exact record id Cloudflare listed; one whose record is gone is skipped.
 */
import type { ProviderError } from '../../errors.ts';
import type { Logger } from '../../log.ts';
import { partFailure } from '../failures.ts';
import { PROVIDER_NAME } from './api.ts';
import type { CfBatch, CfRecord, CfZone, CloudflareApi } from './api.ts';
import type { RecordChange } from './changes.ts';

/** external-dns's floor for --batch-change-size: smaller values are raised to it. */
export const MIN_BATCH_SIZE = 200;

/**
 * Changes Cloudflare takes in one batch request, by the zone's plan ("Batch record changes",
 * availability and limits): 200 on Free, 3,500 on Pro, Business and Enterprise. A larger batch is
 * refused whole and then replayed one request per change, so --batch-change-size is capped by it:
 * one account may hold Free and paid zones. Without a plan id, a zone counts as Free unless paid.
 */
export function planBatchLimit(zone: Pick<CfZone, 'paid' | 'plan'>): number {
  const free = zone.plan === undefined ? !zone.paid : zone.plan === 'free';
  return free ? 200 : 3500;
}

export interface ZoneWrite {
  api: CloudflareApi;
  zoneId: string;
  zoneName: string;
  /** The zone's records by index (name, type, target), as last listed or written. */
  byIndex: ReadonlyMap<string, CfRecord>;
  batchSize: number;
  intervalMs: number;
  useBatch: boolean;
  sleep: (ms: number) => Promise<void>;
  logger: Logger;
  /** Keeps the records cache current. */
  onDeleted: (id: string) => void;
  onWritten: (record: CfRecord) => void;
  /** An answer that does not say what was written: the zone must be listed again. */
  onUnknown: () => void;
  /** The batch endpoint is refused for this account: per-record calls from now on. */
  onBatchUnavailable: () => void;
}

interface Chunk {
  deletes: { id: string; change: RecordChange }[];
  puts: { id: string; change: RecordChange }[];
  posts: RecordChange[];
}

/** Splits deletes, puts and posts into chunks of at most `limit` operations, in that order. */
export function chunkChanges(deletes: Chunk['deletes'], puts: Chunk['puts'], posts: RecordChange[], limit: number): Chunk[] {
  const all = [...deletes.map((d) => ['d', d] as const), ...puts.map((p) => ['u', p] as const), ...posts.map((p) => ['c', p] as const)];
  const chunks: Chunk[] = [];
  for (let i = 0; i < all.length; i += limit) {
    const c: Chunk = { deletes: [], puts: [], posts: [] };
    for (const [kind, op] of all.slice(i, i + limit)) {
      if (kind === 'd') c.deletes.push(op);
      else if (kind === 'u') c.puts.push(op);
      else c.posts.push(op);
    }
    chunks.push(c);
  }
  return chunks;
}

/** Sends one zone's changes; returns the failed ones (the rest are applied). */
export async function writeZone(w: ZoneWrite, changes: readonly RecordChange[]): Promise<ProviderError[]> {
  const deletes: Chunk['deletes'] = [];
  const puts: Chunk['puts'] = [];
  const posts: RecordChange[] = [];
  const singles: { id: string; change: RecordChange }[] = [];
  for (const c of changes) {
    if (c.action === 'create') {
      posts.push(c);
      continue;
    }
    const id = w.byIndex.get(c.index)?.id;
    if (id === undefined && c.replacement === true) {
      // The replaced value is gone already: post the new one, as external-dns's delete + post would.
      posts.push({ ...c, action: 'create' });
      continue;
    }
    if (id === undefined) {
      w.logger.warn({ zone: w.zoneName, record: c.input.name, type: c.input.type, action: c.action }, 'record to change not found at Cloudflare; skipped');
      continue;
    }
    if (c.action === 'delete') deletes.push({ id, change: c });
    else if (c.input.type === 'CAA') singles.push({ id, change: c });
    else puts.push({ id, change: c });
  }
  const failures: ProviderError[] = [];
  const chunks = chunkChanges(deletes, puts, posts, Math.max(w.batchSize, MIN_BATCH_SIZE));
  for (let i = 0; i < chunks.length; i++) {
    if (i > 0 && w.intervalMs > 0) await w.sleep(w.intervalMs);
    failures.push(...(await writeChunk(w, chunks[i] as Chunk)));
  }
  for (const s of singles) failures.push(...(await one(w, s.change, s.id)));
  return failures;
}

async function writeChunk(w: ZoneWrite, chunk: Chunk): Promise<ProviderError[]> {
  if (w.useBatch) {
    const batch: CfBatch = {
      deletes: chunk.deletes.map((d) => d.id),
      puts: chunk.puts.map((p) => ({ id: p.id, record: p.change.input })),
      posts: chunk.posts.map((p) => p.input),
    };
    try {
      const res = await w.api.batch(w.zoneId, batch);
      for (const d of batch.deletes) w.onDeleted(d);
      for (const r of [...res.puts, ...res.posts]) written(w, r);
      if (res.puts.length !== batch.puts.length || res.posts.length !== batch.posts.length) w.onUnknown();
      return [];
    } catch (err) {
      const code = (err as ProviderError).code;
      if (code === 'PROVIDER_THROTTLED') return [partFailure(PROVIDER_NAME, w.zoneName, `${size(chunk)} change(s) not sent`, err)];
      if (code === 'PROVIDER_ACCESS_DENIED' || code === 'PROVIDER_ZONE_NOT_FOUND') w.onBatchUnavailable();
      w.logger.warn({ zone: w.zoneName, changes: size(chunk), err: (err as Error).message }, 'Cloudflare batch refused; sending its changes one by one');
    }
  }
  const failures: ProviderError[] = [];
  for (const d of chunk.deletes) failures.push(...(await one(w, d.change, d.id)));
  for (const p of chunk.puts) failures.push(...(await one(w, p.change, p.id)));
  for (const c of chunk.posts) failures.push(...(await one(w, c, undefined)));
  return failures;
}

function size(c: Chunk): number {
  return c.deletes.length + c.puts.length + c.posts.length;
}

function written(w: ZoneWrite, r: CfRecord): void {
  if (r.id === '') w.onUnknown();
  else w.onWritten(r);
}

async function one(w: ZoneWrite, c: RecordChange, id: string | undefined): Promise<ProviderError[]> {
  try {
    if (c.action === 'delete' && id !== undefined) {
      await w.api.deleteRecord(w.zoneId, id);
      w.onDeleted(id);
    } else if (c.action === 'update' && id !== undefined) written(w, await w.api.updateRecord(w.zoneId, id, c.input));
    else written(w, await w.api.createRecord(w.zoneId, c.input));
    return [];
  } catch (err) {
    // Already gone (deleted outside Hostwarden since the list): what the delete wanted.
    if (c.action === 'delete' && id !== undefined && (err as ProviderError).code === 'PROVIDER_RECORD_NOT_FOUND') {
      w.onDeleted(id);
      return [];
    }
    return [partFailure(PROVIDER_NAME, w.zoneName, `${c.action} ${c.input.type} ${c.input.name} ${JSON.stringify(c.input.content)}`, err)];
  }
}
