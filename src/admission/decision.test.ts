import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { applyOverride, decide, overrideQuery } from './decision.ts';
import type { AdmissionRequest } from '../http/admission-review.ts';
import type { Decision, OverrideAnswer } from './decision.ts';
import { emptyPolicy, policyFromFlags, policyFromNetworkCIDRs } from './policy.ts';
import type { ExternalIPPolicy } from './policy.ts';

const ADMIN: OverrideAnswer = { ok: true, allowed: true };
const USER: OverrideAnswer = { ok: true, allowed: false };

function svc(externalIPs: string[] | undefined, type = 'ClusterIP', ingressIp?: string): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'web', namespace: 'apps' },
    spec: { type, ports: [{ port: 80 }], ...(externalIPs === undefined ? {} : { externalIPs }) },
    ...(ingressIp === undefined ? {} : { status: { loadBalancer: { ingress: [{ ip: ingressIp }] } } }),
  };
}

function request(object: unknown, operation = 'CREATE', oldObject?: unknown): AdmissionRequest {
  return {
    uid: 'u1',
    operation,
    resource: { group: '', version: 'v1', resource: 'services' },
    namespace: 'apps',
    name: 'web',
    object,
    ...(oldObject === undefined ? {} : { oldObject }),
    userInfo: { username: 'alice', uid: 'a-1', groups: ['dev', 'system:authenticated'], extra: { scopes: ['x'] } },
  };
}

/** The full decision, the override check answered by `who` when it is asked. */
function final(policy: ExternalIPPolicy, req: AdmissionRequest, who: OverrideAnswer): Decision {
  const first = decide(policy, req);
  return first.needsOverrideCheck ? applyOverride(first, who) : first;
}

function rules(...entries: string[]): ExternalIPPolicy {
  return policyFromNetworkCIDRs(entries, false, 'test');
}

describe('external-IP decision table', () => {
  test('no config: a Service without externalIPs is allowed', () => {
    const d = final(emptyPolicy('none'), request(svc(undefined)), USER);
    assert.equal(d.allowed, true);
    assert.equal(d.reason, 'no-external-ips');
    assert.equal(final(emptyPolicy('none'), request(svc([])), USER).allowed, true);
  });

  test('no config: an externalIP is refused, saying externalIPs are disabled', () => {
    const d = final(emptyPolicy('none'), request(svc(['1.2.3.4'])), USER);
    assert.equal(d.allowed, false);
    assert.deepEqual(
      d.fieldErrors.map((e) => e.field),
      ['spec.externalIPs'],
    );
    assert.equal(d.message, 'services "web" is forbidden: spec.externalIPs: Forbidden: externalIPs have been disabled');
  });

  test('no config: an admin override is allowed, with a warning', () => {
    const d = final(emptyPolicy('none'), request(svc(['1.2.3.4'])), ADMIN);
    assert.equal(d.allowed, true);
    assert.equal(d.reason, 'override');
    assert.match(d.warnings[0] ?? '', /override/);
  });

  test('outside the admit ranges: refused at spec.externalIPs[0]', () => {
    const d = final(rules('10.0.0.0/8'), request(svc(['192.168.1.1'])), USER);
    assert.equal(d.allowed, false);
    assert.deepEqual(d.fieldErrors, [{ field: 'spec.externalIPs[0]', type: 'Forbidden', detail: 'externalIP is not allowed' }]);
    assert.equal(d.message, 'services "web" is forbidden: spec.externalIPs[0]: Forbidden: externalIP is not allowed');
  });

  test('reject rules only: anything outside them is allowed', () => {
    const policy = rules('!10.0.0.0/8');
    assert.equal(final(policy, request(svc(['192.168.1.1'])), USER).allowed, true);
    assert.equal(final(policy, request(svc(['10.1.1.1'])), USER).allowed, false);
  });

  test('reject wins inside an admit range', () => {
    const d = final(rules('10.0.0.0/8', '!10.1.0.0/16'), request(svc(['10.1.2.3'])), USER);
    assert.equal(d.allowed, false);
    assert.equal(d.fieldErrors[0]?.field, 'spec.externalIPs[0]');
  });

  test('not in any admit range: refused; in one: allowed', () => {
    const policy = rules('10.0.0.0/8', '172.16.0.0/12');
    assert.equal(final(policy, request(svc(['8.8.8.8'])), USER).allowed, false);
    const ok = final(policy, request(svc(['10.2.3.4', '172.20.0.1'])), USER);
    assert.equal(ok.allowed, true);
    assert.equal(ok.reason, 'within-policy');
  });

  test('only the offending entries are reported, by index', () => {
    const d = final(rules('10.0.0.0/8'), request(svc(['10.0.0.1', '11.0.0.1', '10.0.0.2', '12.0.0.1'])), USER);
    assert.deepEqual(
      d.fieldErrors.map((e) => e.field),
      ['spec.externalIPs[1]', 'spec.externalIPs[3]'],
    );
    assert.equal(
      d.message,
      'services "web" is forbidden: [spec.externalIPs[1]: Forbidden: externalIP is not allowed, spec.externalIPs[3]: Forbidden: externalIP is not allowed]',
    );
  });

  test('"abcd" is Forbidden as not a valid address and, as in the plugin, goes to the override check', () => {
    const first = decide(rules('0.0.0.0/0'), request(svc(['abcd'])));
    assert.equal(first.allowed, false);
    assert.deepEqual(first.fieldErrors, [{ field: 'spec.externalIPs[0]', type: 'Forbidden', detail: 'externalIPs must be a valid address' }]);
    assert.equal(first.needsOverrideCheck, true);
    assert.equal(final(rules('0.0.0.0/0'), request(svc(['abcd'])), USER).allowed, false);
    assert.equal(final(rules('0.0.0.0/0'), request(svc(['abcd'])), ADMIN).allowed, true);
  });

  test('the name in the message: the request name, else the object name, else generateName, else Unknown', () => {
    const policy = rules('10.0.0.0/8');
    const bare = (meta: Record<string, unknown>): AdmissionRequest => ({ ...request({ metadata: meta, spec: { externalIPs: ['8.8.8.8'] } }), name: '' });
    assert.match(decide(policy, bare({ name: 'obj' })).message, /^services "obj" is forbidden/);
    assert.match(decide(policy, bare({ generateName: 'web-' })).message, /^services "web-" is forbidden/);
    assert.match(decide(policy, bare({})).message, /^services "Unknown" is forbidden/);
  });

  test('admit 0.0.0.0/32: an ordinary user is refused, an admin is allowed', () => {
    const policy = rules('0.0.0.0/32');
    const user = final(policy, request(svc(['1.2.3.4'])), USER);
    assert.equal(user.allowed, false);
    assert.equal(user.reason, 'refused');
    const admin = final(policy, request(svc(['1.2.3.4'])), ADMIN);
    assert.equal(admin.allowed, true);
    assert.equal(admin.reason, 'override');
  });

  test('admit 0.0.0.0/0 and reject 0.0.0.0/0: refused', () => {
    const d = final(rules('0.0.0.0/0', '!0.0.0.0/0'), request(svc(['1.2.3.4'])), USER);
    assert.equal(d.allowed, false);
  });

  test('LoadBalancer update keeping the old ingress IP is allowed', () => {
    const policy = policyFromNetworkCIDRs(['10.0.0.0/8'], true, 'test');
    const old = svc(undefined, 'LoadBalancer', '203.0.113.7');
    const d = final(policy, request(svc(['203.0.113.7', '10.0.0.5'], 'LoadBalancer'), 'UPDATE', old), USER);
    assert.equal(d.allowed, true);
    // With no ranges at all, the list must be exactly the exempt IP.
    const disabled = { ...emptyPolicy('none'), allowIngressIP: true };
    assert.equal(final(disabled, request(svc(['203.0.113.7'], 'LoadBalancer'), 'UPDATE', old), USER).allowed, true);
    assert.equal(final(disabled, request(svc(['203.0.113.7', '10.0.0.5'], 'LoadBalancer'), 'UPDATE', old), USER).allowed, false);
    assert.equal(final(disabled, request(svc(['203.0.113.7', '203.0.113.7'], 'LoadBalancer'), 'UPDATE', old), USER).allowed, false);
    // The ingress IP is compared as written, as the plugin compares it.
    const v6old = svc(undefined, 'LoadBalancer', '2001:db8::7');
    assert.equal(final(disabled, request(svc(['2001:db8::7'], 'LoadBalancer'), 'UPDATE', v6old), USER).allowed, true);
    assert.equal(final(disabled, request(svc(['2001:DB8::7'], 'LoadBalancer'), 'UPDATE', v6old), USER).allowed, false);
  });

  test('the same on a ClusterIP Service, on CREATE, or without allowIngressIP is refused', () => {
    const allowing = policyFromNetworkCIDRs(['10.0.0.0/8'], true, 'test');
    const old = svc(undefined, 'LoadBalancer', '203.0.113.7');
    assert.equal(final(allowing, request(svc(['203.0.113.7'], 'ClusterIP'), 'UPDATE', old), USER).allowed, false);
    assert.equal(final(allowing, request(svc(['203.0.113.7'], 'LoadBalancer'), 'CREATE'), USER).allowed, false);
    assert.equal(final(rules('10.0.0.0/8'), request(svc(['203.0.113.7'], 'LoadBalancer'), 'UPDATE', old), USER).allowed, false);
  });

  test('IPv6 ranges', () => {
    const policy = rules('2001:db8::/32', '!2001:db8:bad::/48');
    assert.equal(final(policy, request(svc(['2001:db8:1::10'])), USER).allowed, true);
    assert.equal(final(policy, request(svc(['2001:db8:bad::1'])), USER).allowed, false);
    assert.equal(final(policy, request(svc(['2001:db9::1'])), USER).allowed, false);
    // An IPv6 range never admits IPv4 addresses, nor the reverse (as Go's IPNet.Contains).
    assert.equal(final(rules('::/0'), request(svc(['10.0.0.1'])), USER).allowed, false);
    assert.equal(final(rules('0.0.0.0/0'), request(svc(['2001:db8::1'])), USER).allowed, false);
  });

  test('IPv4-mapped IPv6 addresses are judged as the IPv4 address', () => {
    assert.equal(final(rules('!10.0.0.0/8'), request(svc(['::ffff:10.1.2.3'])), USER).allowed, false);
    assert.equal(final(rules('10.0.0.0/8'), request(svc(['::ffff:10.1.2.3'])), USER).allowed, true);
    assert.equal(final(rules('10.0.0.0/8'), request(svc(['::ffff:0a01:0203'])), USER).allowed, true);
    assert.equal(final(rules('::ffff:10.0.0.0/104'), request(svc(['10.9.9.9'])), USER).allowed, true);
    assert.equal(final(rules('10.0.0.0/8'), request(svc(['::ffff:11.1.2.3'])), USER).allowed, false);
  });

  test('other operations, resources and subresources are not judged', () => {
    const policy = emptyPolicy('none');
    assert.equal(decide(policy, request(svc(['1.2.3.4']), 'DELETE')).reason, 'not-applicable');
    assert.equal(decide(policy, { ...request(svc(['1.2.3.4'])), subResource: 'status' }).reason, 'not-applicable');
    assert.equal(
      decide(policy, { ...request(svc(['1.2.3.4'])), resource: { group: 'apps', version: 'v1', resource: 'deployments' } }).reason,
      'not-applicable',
    );
  });

  test('a request without a readable Service is denied, without an override (a webhook always gets the object)', () => {
    const d = decide(emptyPolicy('none'), request(undefined));
    assert.equal(d.allowed, false);
    assert.equal(d.reason, 'malformed');
    assert.equal(d.needsOverrideCheck, false);
    const notList = decide(rules('10.0.0.0/8'), request({ spec: { externalIPs: '10.0.0.1' } }));
    assert.equal(notList.reason, 'malformed');
    const numbers = decide(rules('10.0.0.0/8'), request({ spec: { externalIPs: [42] } }));
    assert.equal(numbers.fieldErrors[0]?.detail, 'externalIPs must be a valid address');
  });

  test('a failed override check denies, and says the check failed', () => {
    const d = final(rules('10.0.0.0/8'), request(svc(['8.8.8.8'])), { ok: false, error: 'timed out after 2000 ms' });
    assert.equal(d.allowed, false);
    assert.equal(d.reason, 'override-check-failed');
    assert.match(d.message, /could not be checked: timed out/);
  });

  test('the override query names the user, groups, uid and extra, asks about service/externalips, and has no namespace', () => {
    assert.deepEqual(overrideQuery(request(svc(['1.2.3.4']))), {
      user: 'alice',
      uid: 'a-1',
      groups: ['dev', 'system:authenticated'],
      extra: { scopes: ['x'] },
      verb: 'create',
      group: 'network.openshift.io',
      resource: 'service',
      subresource: 'externalips',
    });
  });

  test('flags build the same policy as the file form', () => {
    const fromFlags = policyFromFlags({ allowedCidrs: ['10.0.0.0/8'], rejectedCidrs: ['10.1.0.0/16'], allowIngressIP: false });
    assert.equal(final(fromFlags, request(svc(['10.1.0.1'])), USER).allowed, false);
    assert.equal(final(fromFlags, request(svc(['10.2.0.1'])), USER).allowed, true);
  });
});
