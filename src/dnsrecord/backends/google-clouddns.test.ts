import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { ProviderError } from '../../errors.ts';
import type { GoogleDnsApi, GoogleZone } from '../../provider/google/record-sets.ts';
import type { GoogleRRSet } from '../../provider/google/record-sets.ts';
import { ConfigurationProblem } from '../backend.ts';
import type { BackendContext } from '../backend.ts';
import { GoogleCloudDnsBackend, googleCredentials, toGoogleRRSet } from './google-clouddns.ts';

const secretName = 'garden/gcp';
const sa = (extra: Record<string, unknown> = {}): string =>
  JSON.stringify({ type: 'service_account', project_id: 'from-file', client_email: 'dns@p.iam.gserviceaccount.com', private_key: 'k', ...extra });

/** Cloud DNS's change rules for one zone: 409 on an existing addition, 404/412 on deletions. */
class FakeApi implements GoogleDnsApi {
  readonly sets = new Map<string, GoogleRRSet>();
  readonly calls: string[] = [];
  listZones(): Promise<GoogleZone[]> {
    return Promise.resolve([{ id: 'z', dnsName: 'example.org', visibility: 'public' }]);
  }
  listRRSets(): Promise<GoogleRRSet[]> {
    this.calls.push('list');
    return Promise.resolve([...this.sets.values()]);
  }
  createChange(_zone: string, additions: GoogleRRSet[], deletions: GoogleRRSet[]): Promise<void> {
    this.calls.push(`change +${additions.length} -${deletions.length}`);
    const fail = (code: number): Promise<void> => Promise.reject(new ProviderError('google', `HTTP ${code}`, { cause: { code } }));
    for (const d of deletions) {
      const cur = this.sets.get(`${d.name} ${d.type}`);
      if (cur === undefined) return fail(404);
      if (JSON.stringify(cur) !== JSON.stringify(d)) return fail(412);
    }
    for (const a of additions) if (this.sets.has(`${a.name} ${a.type}`) && !deletions.some((d) => d.name === a.name && d.type === a.type)) return fail(409);
    for (const d of deletions) this.sets.delete(`${d.name} ${d.type}`);
    for (const a of additions) this.sets.set(`${a.name} ${a.type}`, a);
    return Promise.resolve();
  }
}

describe('google-clouddns backend', () => {
  test('record sets: absolute names, TXT quoted once and split at 255 bytes, CNAME targets absolute', () => {
    assert.deepEqual(toGoogleRRSet({ name: '_acme.example.org', type: 'TXT', ttl: 60, values: ['a"b', 'x'.repeat(300)] }), {
      name: '_acme.example.org.',
      type: 'TXT',
      ttl: 60,
      rrdatas: ['"a\\"b"', `"${'x'.repeat(255)}" "${'x'.repeat(45)}"`],
    });
    assert.deepEqual(toGoogleRRSet({ name: 'www.example.org', type: 'CNAME', ttl: 120, values: ['lb.example.net'] }).rrdatas, ['lb.example.net.']);
  });

  test('credentials: project from the key file, overridden by projectID; problems name the key', () => {
    assert.equal(googleCredentials({ secretName, secret: { 'serviceaccount.json': sa() } }).project, 'from-file');
    assert.equal(googleCredentials({ secretName, secret: { 'serviceaccount.json': sa(), projectID: 'explicit' } }).project, 'explicit');
    const problem = (secret: Record<string, string>, re: RegExp): void =>
      assert.throws(
        () => googleCredentials({ secretName, secret }),
        (e: unknown) => e instanceof ConfigurationProblem && re.test(e.message),
      );
    problem({}, /secret garden\/gcp has no key "serviceaccount.json"/);
    problem({ 'serviceaccount.json': '{not json' }, /"serviceaccount.json" is not JSON/);
    problem({ 'serviceaccount.json': JSON.stringify({ type: 'authorized_user' }) }, /type "authorized_user"/);
    problem({ 'serviceaccount.json': JSON.stringify({ type: 'external_account' }) }, /names no project/);
  });

  test('upsert adds, replaces the exact current set, and is a no-op when equal; remove tolerates gone and changed sets', async () => {
    const api = new FakeApi();
    const b = new GoogleCloudDnsBackend(api);
    const rs = { name: 'api.example.org', type: 'A' as const, ttl: 120, values: ['192.0.2.1'] };
    await b.upsert('z', rs);
    assert.deepEqual(api.calls, ['change +1 -0']);
    api.calls.length = 0;
    await b.upsert('z', rs);
    assert.deepEqual(api.calls, ['change +1 -0', 'list']);
    api.calls.length = 0;
    await b.upsert('z', { ...rs, values: ['192.0.2.2'] });
    assert.deepEqual(api.calls, ['change +1 -0', 'list', 'change +1 -1']);
    assert.deepEqual(api.sets.get('api.example.org. A')?.rrdatas, ['192.0.2.2']);
    // Changed behind our back: the remove deletes what is there.
    await b.remove('z', rs);
    assert.equal(api.sets.size, 0);
    await b.remove('z', rs);
  });

  test('a key file the auth library cannot use is a configuration problem', async () => {
    const ctx = { secretName, secret: { 'serviceaccount.json': JSON.stringify({ type: 'service_account', project_id: 'p' }) } } as unknown as BackendContext;
    await assert.rejects(
      GoogleCloudDnsBackend.build(ctx, { apiEndpoint: '' }),
      (e: unknown) => e instanceof ConfigurationProblem && /"serviceaccount.json" cannot be used/.test(e.message),
    );
  });
});
