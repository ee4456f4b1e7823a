/**
 * The DNSRecord validating webhook over HTTPS: AdmissionReviews for create, update and delete,
 * denials naming field paths, and a malformed review denied (fail closed).
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:https';
import { selfSignedCertificate } from '../../src/http/tls.ts';
import { DNSRecordWebhook, WEBHOOK_PATH } from '../../src/dnsrecord/webhook.ts';
import { silentLogger } from '../../src/log.ts';
import { opensslUnavailable } from '../support/tls.ts';

const skip = (await opensslUnavailable()) ?? false;

interface Answer {
  response: {
    uid: string;
    allowed: boolean;
    status?: { code: number; reason: string; message: string; details?: { causes: { field: string; message: string }[] } };
  };
}

const spec = { type: 'aws-route53', secretRef: { name: 's' }, name: 'api.example.org', recordType: 'A', values: ['192.0.2.1'] };

function review(operation: string, object: unknown, oldObject?: unknown): unknown {
  return { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: { uid: 'u-1', operation, name: 'rec', namespace: 'ns', object, oldObject } };
}

describe('DNSRecord validating webhook', { skip }, () => {
  let webhook: DNSRecordWebhook;
  let port: number;

  const post = (body: unknown): Promise<Answer> =>
    new Promise((resolve, reject) => {
      const req = request(
        { host: '127.0.0.1', port, path: WEBHOOK_PATH, method: 'POST', rejectUnauthorized: false, headers: { 'content-type': 'application/json' } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Answer));
        },
      );
      req.on('error', reject);
      req.end(typeof body === 'string' ? body : JSON.stringify(body));
    });

  before(async () => {
    webhook = new DNSRecordWebhook({ tls: await selfSignedCertificate(['127.0.0.1']), logger: silentLogger() });
    port = (await webhook.start('127.0.0.1', 0)).port;
  });
  after(async () => {
    await webhook?.stop();
  });

  test('a valid create is allowed', async () => {
    const a = await post(review('CREATE', { metadata: { name: 'rec' }, spec }));
    assert.equal(a.response.uid, 'u-1');
    assert.equal(a.response.allowed, true);
  });

  test('an invalid create is denied with 422 and one cause per field path', async () => {
    const a = await post(review('CREATE', { metadata: { name: 'rec' }, spec: { ...spec, values: ['192.0.2.1', 'x'], ttl: -5 } }));
    assert.equal(a.response.allowed, false);
    assert.equal(a.response.status?.code, 422);
    assert.deepEqual(
      a.response.status?.details?.causes.map((c) => c.field),
      ['spec.values[1]', 'spec.ttl'],
    );
    assert.match(a.response.status?.message ?? '', /DNSRecord\.extensions\.gardener\.cloud "rec" is invalid: spec\.values\[1\]/);
  });

  test('updates: immutable fields, and no spec change while deleting', async () => {
    const a = await post(
      review('UPDATE', { metadata: { name: 'rec' }, spec: { ...spec, recordType: 'AAAA', values: ['2001:db8::1'] } }, { metadata: { name: 'rec' }, spec }),
    );
    assert.deepEqual(a.response.status?.details?.causes, [{ reason: 'FieldValueInvalid', field: 'spec.recordType', message: 'field is immutable' }]);
    const deleting = { metadata: { name: 'rec', deletionTimestamp: '2026-01-01T00:00:00Z' }, spec };
    const b = await post(review('UPDATE', { ...deleting, spec: { ...spec, values: ['192.0.2.9'] } }, deleting));
    assert.deepEqual(
      b.response.status?.details?.causes.map((c) => c.field),
      ['spec'],
    );
    const c = await post(review('UPDATE', { ...deleting, metadata: { ...deleting.metadata, finalizers: [] } }, deleting));
    assert.equal(c.response.allowed, true, 'removing the finalizer while deleting is allowed');
  });

  test('delete is allowed; an unreadable review is denied', async () => {
    assert.equal((await post(review('DELETE', undefined, { metadata: { name: 'rec' }, spec }))).response.allowed, true);
    const bad = await post('{"kind":"Nope"}');
    assert.equal(bad.response.allowed, false);
    assert.equal(bad.response.status?.code, 400);
    assert.deepEqual(webhook.counts, { allowed: 3, denied: 4 });
  });
});
