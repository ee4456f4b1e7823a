/**
 * Alias records handed over between external-dns and Hostwarden through the Route53 emulator and
 * `hostwarden run --once` (the TXT registry in front of the aws provider):
 * (1) a zone external-dns wrote (an A and an AAAA alias, owned by a-/aaaa- TXT records) is read
 *     as owned, left alone while it matches, updated and deleted;
 * (2) a zone an older Hostwarden wrote (an alias owned by a cname- TXT record) is still owned and
 *     moves to a-/aaaa- ownership without its alias record set being deleted;
 * (3) what Hostwarden writes is what external-dns writes, and a CNAME ↔ alias switch deletes the
 *     old record set in the request that creates the new one.
 * Every scenario ends with a run that sends no change.
 */
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, beforeEach, describe, test } from 'node:test';
import { runAwsOnce } from '../support/aws/run-once.ts';
import { isolateAwsSdk } from '../support/aws/provider.ts';
import { startAwsEmulators } from '../support/aws/start.ts';
import type { AwsEmulators } from '../support/aws/start.ts';
import type { EmulatedZone } from '../support/aws/route53-emulator.ts';
import type { RecordSet } from '../support/aws/route53-model.ts';

isolateAwsSdk();

const ELB = 'k8s-web-1234567890.us-east-1.elb.amazonaws.com';
const ELB2 = 'k8s-web-0987654321.us-east-1.elb.amazonaws.com';
const ELB_ZONE = 'Z35SXDOTRQ7X7K';

function service(name: string, hostname: string, target: string, alias?: string): string {
  return `apiVersion: v1
kind: Service
metadata:
  name: ${name}
  namespace: default
  annotations:
    external-dns.kubernetes.io/hostname: ${hostname}
    external-dns.kubernetes.io/target: ${target}${alias === undefined ? '' : `\n    external-dns.kubernetes.io/alias: "${alias}"`}
spec:
  type: LoadBalancer
`;
}

/** The TXT value external-dns writes (unencrypted), as Route53 holds it. */
const ownership = (owner: string, resource: string): string => `"heritage=external-dns,external-dns/owner=${owner},external-dns/resource=${resource}"`;

const aliasSet = (name: string, type: string, target: string, evaluateTargetHealth = true): RecordSet => ({
  name,
  type,
  values: [],
  alias: { hostedZoneId: ELB_ZONE, dnsName: `${target}.`, evaluateTargetHealth },
});
const txtSet = (name: string, value: string): RecordSet => ({ name, type: 'TXT', ttl: 300, values: [value] });

/** The zone's record sets as comparable strings (name, type, alias target or values). */
function contents(e: AwsEmulators, zone: EmulatedZone): string[] {
  return e.route53
    .recordsOf(zone.id)
    .map((rs) =>
      rs.alias === undefined
        ? `${rs.name} ${rs.type} ${rs.values.join(' ')}`
        : `${rs.name} ${rs.type} alias ${rs.alias.hostedZoneId} ${rs.alias.dnsName} ${rs.alias.evaluateTargetHealth}`,
    )
    .sort();
}

describe('alias ownership handed over between external-dns and Hostwarden (Route53 emulator, run --once)', () => {
  let e: AwsEmulators;
  let dir: string;
  let zone: EmulatedZone;
  before(async () => {
    e = await startAwsEmulators();
    dir = await mkdtemp(join(tmpdir(), 'hw-aws-handover-'));
  });
  after(async () => {
    await e.stop();
    await rm(dir, { recursive: true, force: true });
  });
  beforeEach(async () => {
    e.route53.zones.clear();
    e.route53.batches.length = 0;
    zone = e.route53.createZone('example.org');
    await rm(join(dir, 'manifests'), { recursive: true, force: true });
    await mkdir(join(dir, 'manifests'));
  });

  const manifest = (file: string, text: string): Promise<void> => writeFile(join(dir, 'manifests', file), text);

  /** One `run --once`; returns the requests it sent. */
  const run = async (owner: string, extra: string[] = []): Promise<{ action: string; name: string; type: string }[][]> => {
    const before = e.route53.batches.length;
    const r = await runAwsOnce(e, { manifestsDir: join(dir, 'manifests'), owner, home: dir, extra });
    assert.equal(r.code, 0, r.stderr);
    return e.route53.batches.slice(before).map((b) => b.changes);
  };

  test('(1) a zone external-dns wrote: owned, kept while it matches, updated, deleted', async () => {
    // What external-dns (owner "edns") leaves for a Service whose target is a load balancer.
    for (const type of ['A', 'AAAA']) {
      e.route53.put(zone, aliasSet('shop.example.org', type, ELB));
      e.route53.put(zone, txtSet(`${type.toLowerCase()}-shop.example.org`, ownership('edns', 'service/default/shop')));
    }
    const written = contents(e, zone);
    await manifest('shop.yaml', service('shop', 'shop.example.org', ELB));

    assert.deepEqual(await run('edns'), [], 'the records read back as desired: nothing to send');
    assert.deepEqual(contents(e, zone), written);

    // Another owner sees the records as not its own and leaves them alone.
    assert.deepEqual(await run('someone-else'), []);

    await manifest('shop.yaml', service('shop', 'shop.example.org', ELB2));
    const update = (await run('edns')).flat();
    assert.deepEqual(
      update
        .filter((c) => c.type !== 'TXT')
        .map((c) => `${c.action} ${c.type}`)
        .sort(),
      ['UPSERT A', 'UPSERT AAAA'],
    );
    assert.equal(e.route53.find(zone, 'shop.example.org', 'A')?.alias?.dnsName, `${ELB2}.`);
    assert.equal(e.route53.find(zone, 'shop.example.org', 'AAAA')?.alias?.dnsName, `${ELB2}.`);
    assert.deepEqual(e.route53.find(zone, 'a-shop.example.org', 'TXT')?.values, [ownership('edns', 'service/default/shop')]);
    assert.deepEqual(await run('edns'), []);

    await unlink(join(dir, 'manifests', 'shop.yaml'));
    await manifest('keep.yaml', service('keep', 'keep.example.org', '192.0.2.1'));
    await run('edns');
    assert.deepEqual(
      contents(e, zone).filter((r) => r.includes('shop')),
      [],
      'the aliases and their a-/aaaa- TXT records are gone',
    );
  });

  test('(2) a zone an older Hostwarden wrote: the cname- owned alias is kept and moves to a-/aaaa- ownership', async () => {
    // Older Hostwarden: alias=true wrote the A alias only, alias=AAAA the AAAA one, both owned by cname-.
    e.route53.put(zone, aliasSet('shop.example.org', 'A', ELB));
    e.route53.put(zone, txtSet('cname-shop.example.org', ownership('hw', 'service/default/shop')));
    e.route53.put(zone, aliasSet('v6.example.org', 'AAAA', ELB));
    e.route53.put(zone, txtSet('cname-v6.example.org', ownership('hw', 'service/default/v6')));
    await manifest('shop.yaml', service('shop', 'shop.example.org', ELB));
    await manifest('v6.yaml', service('v6', 'v6.example.org', ELB, 'AAAA'));

    const first = (await run('hw')).flat();
    assert.deepEqual(
      first.filter((c) => c.action === 'DELETE'),
      [],
      'nothing is deleted: neither the alias record sets nor the legacy TXT records',
    );
    assert.deepEqual(
      first
        .filter((c) => c.type !== 'TXT')
        .map((c) => `${c.action} ${c.name} ${c.type}`)
        .sort(),
      ['CREATE shop.example.org. AAAA', 'UPSERT shop.example.org. A', 'UPSERT v6.example.org. AAAA'],
    );
    assert.deepEqual(contents(e, zone), [
      'a-shop.example.org. TXT ' + ownership('hw', 'service/default/shop'),
      'aaaa-shop.example.org. TXT ' + ownership('hw', 'service/default/shop'),
      'aaaa-v6.example.org. TXT ' + ownership('hw', 'service/default/v6'),
      'cname-shop.example.org. TXT ' + ownership('hw', 'service/default/shop'),
      'cname-v6.example.org. TXT ' + ownership('hw', 'service/default/v6'),
      `shop.example.org. A alias ${ELB_ZONE} ${ELB}. true`,
      `shop.example.org. AAAA alias ${ELB_ZONE} ${ELB}. true`,
      `v6.example.org. AAAA alias ${ELB_ZONE} ${ELB}. true`,
    ]);
    assert.deepEqual(await run('hw'), [], 'the second run changes nothing');
  });

  test('(3) what Hostwarden writes is what external-dns writes; CNAME ↔ alias switches in one request', async () => {
    await manifest('shop.yaml', service('shop', 'shop.example.org', 'origin.example.net'));
    await run('hw');
    assert.deepEqual(contents(e, zone), [
      'cname-shop.example.org. TXT ' + ownership('hw', 'service/default/shop'),
      'shop.example.org. CNAME origin.example.net',
    ]);

    // The target becomes a load balancer: the CNAME is deleted in the request creating the aliases.
    await manifest('shop.yaml', service('shop', 'shop.example.org', ELB));
    const toAlias = await run('hw');
    const switched = toAlias.find((b) => b.some((c) => c.type === 'CNAME'));
    assert.ok(switched !== undefined);
    assert.deepEqual(
      switched
        .filter((c) => c.type !== 'TXT')
        .map((c) => `${c.action} ${c.type}`)
        .sort(),
      ['CREATE A', 'CREATE AAAA', 'DELETE CNAME'],
    );
    // Exactly the record sets external-dns writes for this Service (its TXT value format included).
    assert.deepEqual(contents(e, zone), [
      'a-shop.example.org. TXT ' + ownership('hw', 'service/default/shop'),
      'aaaa-shop.example.org. TXT ' + ownership('hw', 'service/default/shop'),
      `shop.example.org. A alias ${ELB_ZONE} ${ELB}. true`,
      `shop.example.org. AAAA alias ${ELB_ZONE} ${ELB}. true`,
    ]);
    assert.deepEqual(await run('hw'), []);

    // --aws-evaluate-target-health=false is the default of the aliases' EvaluateTargetHealth.
    await run('hw', ['--aws-evaluate-target-health=false']);
    assert.equal(e.route53.find(zone, 'shop.example.org', 'AAAA')?.alias?.evaluateTargetHealth, false);
    assert.deepEqual(await run('hw', ['--aws-evaluate-target-health=false']), []);

    // --aws-prefer-cname: back to a CNAME, the aliases deleted in the request creating it.
    const toCname = await run('hw', ['--aws-prefer-cname']);
    const back = toCname.find((b) => b.some((c) => c.type === 'CNAME'));
    assert.ok(back !== undefined);
    assert.deepEqual(
      back
        .filter((c) => c.type !== 'TXT')
        .map((c) => `${c.action} ${c.type}`)
        .sort(),
      ['CREATE CNAME', 'DELETE A', 'DELETE AAAA'],
    );
    assert.deepEqual(contents(e, zone), ['cname-shop.example.org. TXT ' + ownership('hw', 'service/default/shop'), `shop.example.org. CNAME ${ELB}`]);
    assert.deepEqual(await run('hw', ['--aws-prefer-cname']), []);
  });
});
