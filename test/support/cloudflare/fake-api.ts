/** An in-memory CloudflareApi for unit tests: zones, records, hostnames, call counts and injected failures. */
import { ProviderError } from '../../../src/errors.ts';
import { PROVIDER_NAME } from '../../../src/provider/cloudflare/api.ts';
import type {
  CfBatch,
  CfBatchResult,
  CfCustomHostname,
  CfCustomHostnameInput,
  CfRecord,
  CfRecordInput,
  CfRegionalHostname,
  CfZone,
  CloudflareApi,
} from '../../../src/provider/cloudflare/api.ts';

export class FakeCloudflareApi implements CloudflareApi {
  readonly zones: CfZone[] = [];
  readonly records = new Map<string, CfRecord[]>();
  readonly customHostnames = new Map<string, CfCustomHostname[]>();
  readonly regional = new Map<string, CfRegionalHostname[]>();
  readonly calls: string[] = [];
  /** Errors thrown by the next calls of a method, in order. */
  readonly failures = new Map<string, unknown[]>();
  /** Record names whose create is refused (as Cloudflare refuses a bad record), batch included. */
  readonly refuse = new Set<string>();
  private nextId = 1;

  addZone(name: string, paid = false): string {
    const id = `zone${this.zones.length + 1}`;
    this.zones.push({ id, name, paid });
    this.records.set(id, []);
    return id;
  }

  addRecord(zoneId: string, r: CfRecordInput): CfRecord {
    const rec = { ...r, id: `rec${this.nextId++}` };
    this.records.get(zoneId)?.push(rec);
    return rec;
  }

  failNext(method: string, err: unknown): void {
    this.failures.set(method, [...(this.failures.get(method) ?? []), err]);
  }

  count(method: string): number {
    return this.calls.filter((c) => c === method).length;
  }

  private enter(method: string): void {
    this.calls.push(method);
    const queue = this.failures.get(method);
    const err = queue?.shift();
    if (err !== undefined) throw err;
  }

  private list(zoneId: string): CfRecord[] {
    const l = this.records.get(zoneId);
    if (l === undefined) throw new ProviderError(PROVIDER_NAME, `zone ${zoneId} not found`, { code: 'PROVIDER_ZONE_NOT_FOUND' });
    return l;
  }

  private check(r: CfRecordInput): void {
    if (this.refuse.has(r.name))
      throw new ProviderError(PROVIDER_NAME, `create ${r.name}: Cloudflare answered 400: 9000 refused`, { code: 'PROVIDER_REJECTED' });
  }

  listZones(): Promise<CfZone[]> {
    this.enter('listZones');
    return Promise.resolve(this.zones.map((z) => ({ ...z })));
  }

  getZone(zoneId: string): Promise<CfZone> {
    this.enter('getZone');
    const z = this.zones.find((x) => x.id === zoneId);
    if (z === undefined) return Promise.reject(new ProviderError(PROVIDER_NAME, 'no zone', { code: 'PROVIDER_ZONE_NOT_FOUND' }));
    return Promise.resolve({ ...z });
  }

  listRecordsPage(zoneId: string, page: number, perPage: number): Promise<{ records: CfRecord[]; totalPages: number }> {
    this.enter('listRecordsPage');
    const all = this.list(zoneId);
    return Promise.resolve({
      records: all.slice((page - 1) * perPage, page * perPage).map((r) => ({ ...r })),
      totalPages: Math.max(1, Math.ceil(all.length / perPage)),
    });
  }

  createRecord(zoneId: string, record: CfRecordInput): Promise<CfRecord> {
    this.enter('createRecord');
    this.check(record);
    return Promise.resolve({ ...this.addRecord(zoneId, record) });
  }

  updateRecord(zoneId: string, recordId: string, record: CfRecordInput): Promise<CfRecord> {
    this.enter('updateRecord');
    const l = this.list(zoneId);
    const i = l.findIndex((r) => r.id === recordId);
    if (i < 0) return Promise.reject(new ProviderError(PROVIDER_NAME, 'record not found', { code: 'PROVIDER_RECORD_NOT_FOUND' }));
    l[i] = { ...record, id: recordId };
    return Promise.resolve({ ...l[i] });
  }

  deleteRecord(zoneId: string, recordId: string): Promise<void> {
    this.enter('deleteRecord');
    const l = this.list(zoneId);
    const i = l.findIndex((r) => r.id === recordId);
    if (i < 0) return Promise.reject(new ProviderError(PROVIDER_NAME, 'record not found', { code: 'PROVIDER_RECORD_NOT_FOUND' }));
    l.splice(i, 1);
    return Promise.resolve();
  }

  batch(zoneId: string, ops: CfBatch): Promise<CfBatchResult> {
    this.enter('batch');
    const before = this.list(zoneId).map((r) => ({ ...r }));
    for (const p of ops.posts) this.check(p);
    const l = this.list(zoneId);
    for (const id of ops.deletes) {
      const i = l.findIndex((r) => r.id === id);
      if (i < 0) {
        this.records.set(zoneId, before);
        return Promise.reject(new ProviderError(PROVIDER_NAME, 'record not found', { code: 'PROVIDER_RECORD_NOT_FOUND' }));
      }
      l.splice(i, 1);
    }
    const puts = ops.puts.map((p) => {
      const i = l.findIndex((r) => r.id === p.id);
      l[i] = { ...p.record, id: p.id };
      return { ...l[i] } as CfRecord;
    });
    const posts = ops.posts.map((p) => ({ ...this.addRecord(zoneId, p) }));
    return Promise.resolve({ puts, posts });
  }

  listCustomHostnames(zoneId: string): Promise<CfCustomHostname[]> {
    this.enter('listCustomHostnames');
    return Promise.resolve([...(this.customHostnames.get(zoneId) ?? [])]);
  }

  createCustomHostname(zoneId: string, ch: CfCustomHostnameInput): Promise<CfCustomHostname> {
    this.enter('createCustomHostname');
    const l = this.customHostnames.get(zoneId) ?? [];
    const made = { id: `ch${this.nextId++}`, hostname: ch.hostname, customOriginServer: ch.customOriginServer };
    l.push(made);
    this.customHostnames.set(zoneId, l);
    return Promise.resolve({ ...made });
  }

  deleteCustomHostname(zoneId: string, id: string): Promise<void> {
    this.enter('deleteCustomHostname');
    this.customHostnames.set(
      zoneId,
      (this.customHostnames.get(zoneId) ?? []).filter((c) => c.id !== id),
    );
    return Promise.resolve();
  }

  listRegionalHostnames(zoneId: string): Promise<CfRegionalHostname[]> {
    this.enter('listRegionalHostnames');
    return Promise.resolve([...(this.regional.get(zoneId) ?? [])]);
  }

  createRegionalHostname(zoneId: string, rh: CfRegionalHostname): Promise<void> {
    this.enter('createRegionalHostname');
    this.regional.set(zoneId, [...(this.regional.get(zoneId) ?? []), { ...rh }]);
    return Promise.resolve();
  }

  updateRegionalHostname(zoneId: string, rh: CfRegionalHostname): Promise<void> {
    this.enter('updateRegionalHostname');
    this.regional.set(
      zoneId,
      (this.regional.get(zoneId) ?? []).map((r) => (r.hostname === rh.hostname ? { ...rh } : r)),
    );
    return Promise.resolve();
  }

  deleteRegionalHostname(zoneId: string, hostname: string): Promise<void> {
    this.enter('deleteRegionalHostname');
    this.regional.set(
      zoneId,
      (this.regional.get(zoneId) ?? []).filter((r) => r.hostname !== hostname),
    );
    return Promise.resolve();
  }
}
