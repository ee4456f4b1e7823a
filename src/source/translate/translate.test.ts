import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { validateEndpoint } from '../../endpoint/validate.ts';
import { translateObject } from './translate.ts';

const A = 'external-dns.alpha.kubernetes.io/';

// Objects of the supported kinds with arbitrary (often nonsensical) contents in the places the
// translators read, to check that no input makes translation throw or emit an invalid endpoint.
const junk = fc.oneof(
  fc.string(),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string(), { maxLength: 3 }),
  fc.dictionary(fc.string(), fc.string(), { maxKeys: 3 }),
);
const hostish = fc.oneof(fc.constantFrom('a.example.org', 'b.example.org.', '*.example.org', 'bad_!.org', '', ' , ', 'x..y'), fc.string());
const targetish = fc.oneof(fc.constantFrom('192.0.2.1', '2001:db8::1', 'lb.example.net', 'not an ip', ''), fc.string());

const annotations = fc.record(
  {
    [`${A}hostname`]: fc.array(hostish, { maxLength: 3 }).map((h) => h.join(',')),
    [`${A}ttl`]: fc.oneof(fc.constantFrom('60', '1m', '0', '-1', 'x', '1.5h'), fc.string()),
    [`${A}target`]: fc.array(targetish, { maxLength: 3 }).map((t) => t.join(',')),
    [`${A}set-identifier`]: fc.string(),
    [`${A}aws-weight`]: fc.string(),
  },
  { requiredKeys: [] },
);

const meta = fc.record(
  { name: fc.oneof(fc.constant('obj'), junk), namespace: fc.oneof(fc.constant('ns'), junk), annotations: fc.oneof(annotations, junk), labels: junk },
  { requiredKeys: [] },
);
const lbIngress = fc.array(fc.record({ ip: fc.oneof(targetish, junk), hostname: fc.oneof(targetish, junk) }, { requiredKeys: [] }), { maxLength: 3 });

const service = fc.record({
  apiVersion: fc.constant('v1'),
  kind: fc.constant('Service'),
  metadata: fc.oneof(meta, junk),
  spec: fc.oneof(
    fc.record(
      {
        type: fc.oneof(fc.constantFrom('LoadBalancer', 'ClusterIP', 'ExternalName', 'NodePort'), junk),
        externalIPs: fc.oneof(fc.array(targetish), junk),
        externalName: fc.oneof(hostish, junk),
        clusterIP: fc.oneof(targetish, junk),
      },
      { requiredKeys: [] },
    ),
    junk,
  ),
  status: fc.oneof(fc.record({ loadBalancer: fc.record({ ingress: fc.oneof(lbIngress, junk) }) }), junk),
});
const ingress = fc.record({
  apiVersion: fc.constant('networking.k8s.io/v1'),
  kind: fc.constant('Ingress'),
  metadata: fc.oneof(meta, junk),
  spec: fc.oneof(
    fc.record(
      {
        rules: fc.oneof(fc.array(fc.record({ host: fc.oneof(hostish, junk) }), { maxLength: 3 }), junk),
        tls: fc.oneof(fc.array(fc.record({ hosts: fc.oneof(fc.array(hostish), junk) }), { maxLength: 2 }), junk),
      },
      { requiredKeys: [] },
    ),
    junk,
  ),
  status: fc.oneof(fc.record({ loadBalancer: fc.record({ ingress: fc.oneof(lbIngress, junk) }) }), junk),
});
const dnsEndpoint = fc.record({
  apiVersion: fc.constant('externaldns.k8s.io/v1alpha1'),
  kind: fc.constant('DNSEndpoint'),
  metadata: fc.oneof(meta, junk),
  spec: fc.oneof(
    fc.record({
      endpoints: fc.oneof(
        fc.array(
          fc.record(
            {
              dnsName: fc.oneof(hostish, junk),
              recordType: fc.oneof(fc.constantFrom('A', 'AAAA', 'CNAME', 'TXT', 'MX', 'SRV', 'NAPTR', 'a'), junk),
              targets: fc.oneof(fc.array(targetish, { maxLength: 3 }), junk),
              recordTTL: fc.oneof(fc.integer(), junk),
              labels: junk,
              providerSpecific: fc.oneof(fc.array(fc.record({ name: junk, value: junk })), junk),
              setIdentifier: junk,
            },
            { requiredKeys: [] },
          ),
          { maxLength: 4 },
        ),
        junk,
      ),
    }),
    junk,
  ),
});

describe('translateObject on arbitrary input', () => {
  test('never throws and only emits valid endpoints', () => {
    fc.assert(
      fc.property(fc.oneof(service, ingress, dnsEndpoint, fc.anything()), fc.boolean(), (obj, keepEmpty) => {
        const result = translateObject(obj, { keepEmptyTargets: keepEmpty });
        for (const ep of result.endpoints) {
          if (keepEmpty && ep.targets.length === 0) continue;
          assert.deepEqual(validateEndpoint(ep), ep);
        }
        for (const p of result.problems) assert.equal(typeof p.message, 'string');
      }),
      { numRuns: 500 },
    );
  });
});
