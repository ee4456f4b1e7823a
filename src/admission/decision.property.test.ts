import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { applyOverride, decide } from './decision.ts';
import type { AdmissionRequest } from '../http/admission-review.ts';
import { parseCidr, parseIp } from './ip.ts';
import { policyFromNetworkCIDRs } from './policy.ts';
import { readReview } from '../http/admission-review.ts';

const POLICY = policyFromNetworkCIDRs(['10.0.0.0/8', '!10.9.0.0/16', '2001:db8::/32'], true, 'property');

test('no request shape makes the decision throw; refusals always carry field errors or a message', () => {
  fc.assert(
    fc.property(
      fc.constantFrom('CREATE', 'UPDATE', 'DELETE', 'CONNECT', ''),
      fc.anything(),
      fc.anything(),
      fc.array(fc.oneof(fc.string(), fc.ipV4(), fc.ipV6(), fc.anything()), { maxLength: 5 }),
      (operation, object, oldObject, ips) => {
        const shaped = { metadata: { name: 'x' }, spec: { type: 'LoadBalancer', externalIPs: ips } };
        for (const obj of [object, shaped]) {
          const req: AdmissionRequest = {
            uid: 'u',
            operation,
            resource: { group: '', version: 'v1', resource: 'services' },
            namespace: 'ns',
            object,
            oldObject,
          };
          const d = decide(POLICY, { ...req, object: obj });
          if (!d.allowed) assert.ok(d.message !== '');
          const final = applyOverride(d, { ok: false, error: 'x' });
          if (d.needsOverrideCheck) assert.equal(final.allowed, false);
        }
      },
    ),
    { numRuns: 300 },
  );
});

test('any body is read without throwing', () => {
  fc.assert(
    fc.property(
      fc.oneof(
        fc.string(),
        fc.json(),
        fc.anything().map((v) => JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: v }) ?? ''),
      ),
      (body) => {
        readReview(body);
      },
    ),
    { numRuns: 300 },
  );
});

test('an IPv4 address and its IPv4-mapped IPv6 spelling are always judged alike', () => {
  fc.assert(
    fc.property(fc.ipV4(), fc.ipV4(), fc.integer({ min: 0, max: 32 }), (ip, net, prefix) => {
      const range = policyFromNetworkCIDRs([`${net}/${prefix}`], false, 'p');
      const svc = (addr: string): AdmissionRequest => ({
        uid: 'u',
        operation: 'CREATE',
        resource: { group: '', resource: 'services' },
        object: { spec: { externalIPs: [addr] } },
      });
      assert.equal(decide(range, svc(`::ffff:${ip}`)).allowed, decide(range, svc(ip)).allowed);
      assert.deepEqual(parseIp(`::ffff:${ip}`), parseIp(ip));
      assert.ok(parseCidr(`::ffff:${net}/${prefix + 96}`) !== undefined);
    }),
    { numRuns: 300 },
  );
});
