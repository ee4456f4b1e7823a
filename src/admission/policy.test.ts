import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError } from '../errors.ts';
import { cidrContains, parseCidr, parseIp } from './ip.ts';
import { PolicyError, describePolicy, parsePolicyFile, policyFromFlags, policyFromNetworkObject } from './policy.ts';

describe('IP and CIDR parsing', () => {
  test('accepts what Go accepts, folds IPv4-mapped addresses', () => {
    assert.deepEqual(parseIp('10.1.2.3'), { family: 4, value: 0x0a010203n });
    assert.deepEqual(parseIp('::ffff:10.1.2.3'), { family: 4, value: 0x0a010203n });
    assert.deepEqual(parseIp('::ffff:a01:203'), { family: 4, value: 0x0a010203n });
    assert.equal(parseIp('2001:db8::1')?.family, 6);
    assert.equal(parseIp('1:2:3:4:5:6:1.2.3.4')?.family, 6);
  });

  test('refuses leading zeros, zones, short forms and junk', () => {
    for (const bad of ['010.1.1.1', '1.2.3', '1.2.3.256', 'fe80::1%eth0', 'abcd', '', ' 1.2.3.4', '1::2::3', '1:2:3:4:5:6:7::8']) {
      assert.equal(parseIp(bad), undefined, bad);
    }
  });

  test('CIDRs: host bits cleared, mapped ranges folded, bad prefixes refused', () => {
    assert.equal(parseCidr('10.9.9.9/8')?.network, 0x0a000000n);
    const mapped = parseCidr('::ffff:10.0.0.0/104');
    assert.equal(mapped?.family, 4);
    assert.equal(mapped?.prefix, 8);
    for (const bad of ['10.0.0.0', '10.0.0.0/33', '10.0.0.0/08', '::/129', 'x/8', '10.0.0.0/']) assert.equal(parseCidr(bad), undefined, bad);
    assert.equal(cidrContains(parseCidr('0.0.0.0/0')!, parseIp('255.255.255.255')!), true);
    assert.equal(cidrContains(parseCidr('10.0.0.0/32')!, parseIp('10.0.0.1')!), false);
  });
});

describe('policy sources', () => {
  test('the upstream ExternalIPRangerAdmissionConfig, YAML or JSON', () => {
    const yaml =
      'apiVersion: network.openshift.io/v1\nkind: ExternalIPRangerAdmissionConfig\nexternalIPNetworkCIDRs: ["10.0.0.0/8", "!10.1.0.0/16"]\nallowIngressIP: true\n';
    const p = parsePolicyFile(yaml, 'ranger.yaml');
    assert.deepEqual(
      p.admit.map((r) => r.text),
      ['10.0.0.0/8'],
    );
    assert.deepEqual(
      p.reject.map((r) => r.text),
      ['10.1.0.0/16'],
    );
    assert.equal(p.allowIngressIP, true);
    const json = parsePolicyFile(JSON.stringify({ kind: 'ExternalIPRangerAdmissionConfig', externalIPNetworkCIDRs: ['!0.0.0.0/0'] }), 'r.json');
    assert.equal(json.reject.length, 1);
    assert.match(describePolicy(p), /admit 10\.0\.0\.0\/8; reject 10\.1\.0\.0\/16; ingress IP exempt/);
  });

  test('errors name the file and the entry', () => {
    assert.throws(
      () => parsePolicyFile('externalIPNetworkCIDRs: ["10.0.0.0/8", "!10.1.0.0/99"]', 'ranger.yaml'),
      (err: unknown) => {
        assert.ok(err instanceof PolicyError);
        assert.match(err.message, /ranger\.yaml: externalIPNetworkCIDRs\[1\]: "10\.1\.0\.0\/99" is not a CIDR/);
        return true;
      },
    );
    assert.throws(() => parsePolicyFile('kind: Other', 'x.yaml'), /kind is "Other"/);
    assert.throws(() => parsePolicyFile('allowIngressIP: maybe', 'x.yaml'), /allowIngressIP must be true or false/);
    assert.throws(() => parsePolicyFile('[1, 2', 'x.yaml'), /not YAML or JSON/);
  });

  test('flag errors name the flag and the entry', () => {
    assert.throws(
      () => policyFromFlags({ allowedCidrs: ['10.0.0.0/8'], rejectedCidrs: ['bad'], allowIngressIP: false }),
      (err: unknown) => {
        assert.ok(err instanceof ConfigError);
        assert.equal(err.flag, '--rejected-cidrs');
        assert.match(err.message, /"bad" is not a CIDR/);
        return true;
      },
    );
  });

  test('the OpenShift Network object: rejected first, allowIngressIP from autoAssignCIDRs', () => {
    const net = {
      spec: { externalIP: { policy: { allowedCIDRs: ['192.0.2.0/24'], rejectedCIDRs: ['192.0.2.128/25'] }, autoAssignCIDRs: ['198.51.100.0/24'] } },
    };
    const p = policyFromNetworkObject(net, 'networks/cluster');
    assert.deepEqual(
      p.admit.map((r) => r.text),
      ['192.0.2.0/24'],
    );
    assert.deepEqual(
      p.reject.map((r) => r.text),
      ['192.0.2.128/25'],
    );
    assert.equal(p.allowIngressIP, true);
    assert.equal(policyFromNetworkObject({ spec: {} }, 'n').admit.length, 0);
    assert.throws(
      () => policyFromNetworkObject({ spec: { externalIP: { policy: { allowedCIDRs: ['nope'] } } } }, 'networks/cluster'),
      /networks\/cluster: spec\.externalIP\.policy\.allowedCIDRs\[0\]: "nope"/,
    );
  });
});
