/**
 * Runs `hostwarden run` (webhook provider, manifest source) and checks that /metrics serves every
 * external_dns_* metric listed in metrics.json with upstream's type and label names, fed with
 * values: a foreign-owned name, a duplicate, an invalid endpoint and a failing webhook call are
 * all part of the setup. Then with the embedded provider: every name is listed there too.
 */
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { startHostwarden } from '../../support/hostwarden-process.ts';
import type { RunningHostwarden } from '../../support/hostwarden-process.ts';
import { startWebhookFixture } from '../../support/webhook-fixture.ts';

interface MetricCase {
  name: string;
  type: 'gauge' | 'counter' | 'summary';
  labels: string[];
  differs?: string;
}

const data = JSON.parse(await readFile(new URL('./metrics.json', import.meta.url), 'utf8')) as { upstream: string; cases: MetricCase[] };

/** Label vectors that get no series in this setup: the provider cache is off (no --provider-cache-time). */
const NO_SERIES_HERE = new Set(['external_dns_provider_cache_records_calls']);

function dnsEndpoint(name: string, records: { dnsName: string; recordType: string; targets: string[] }[]): string {
  const eps = records.map(
    (r) => `    - dnsName: ${r.dnsName}\n      recordType: ${r.recordType}\n      targets: [${r.targets.map((t) => JSON.stringify(t)).join(', ')}]`,
  );
  return `apiVersion: externaldns.k8s.io/v1alpha1\nkind: DNSEndpoint\nmetadata:\n  name: ${name}\n  namespace: default\nspec:\n  endpoints:\n${eps.join('\n')}\n`;
}

/** Label names of a sample line (`name{a="x",b="y"} 1`), quantile left out. */
function labelNames(line: string): string[] {
  const open = line.indexOf('{');
  if (open === -1) return [];
  const body = line.slice(open + 1, line.lastIndexOf('}'));
  return [...body.matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="(?:[^"\\]|\\.)*"/g)].map((m) => m[1] as string).filter((n) => n !== 'quantile');
}

function sampleValue(text: string, prefix: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(prefix));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

test(`hostwarden run serves every metric of ${data.upstream} with its type and labels`, { timeout: 120_000 }, async () => {
  assert.equal(data.cases.length, 24, 'upstream lists 24 external_dns_* metrics');
  const fx = await startWebhookFixture();
  fx.records = [
    { dnsName: 'taken.example.org', recordType: 'A', targets: ['192.0.2.9'] },
    { dnsName: 'a-taken.example.org', recordType: 'TXT', targets: ['"heritage=external-dns,external-dns/owner=other,external-dns/resource=crd/default/x"'] },
    // Already as desired: a verified record.
    { dnsName: 'kept.example.org', recordType: 'A', targets: ['192.0.2.3'] },
    { dnsName: 'a-kept.example.org', recordType: 'TXT', targets: ['"heritage=external-dns,external-dns/owner=me,external-dns/resource=crd/default/web"'] },
  ];
  // The first records call fails: a soft error, counted, then retried.
  fx.script.set('GET /records', [{ status: 500, body: 'busy' }]);
  const root = await mkdtemp(join(tmpdir(), 'hw-metrics-'));
  const manifests = join(root, 'manifests');
  await mkdir(manifests);
  const dup = dnsEndpoint('dup', [{ dnsName: 'dup.example.org', recordType: 'A', targets: ['192.0.2.2'] }]);
  await writeFile(join(manifests, 'dup-1.yaml'), dup);
  await writeFile(join(manifests, 'dup-2.yaml'), dup);
  await writeFile(
    join(manifests, 'web.yaml'),
    dnsEndpoint('web', [
      { dnsName: 'www.example.org', recordType: 'A', targets: ['192.0.2.1'] },
      { dnsName: 'kept.example.org', recordType: 'A', targets: ['192.0.2.3'] },
      { dnsName: 'taken.example.org', recordType: 'AAAA', targets: ['2001:db8::1'] },
      { dnsName: 'bad.example.org', recordType: 'A', targets: ['not-an-address'] },
    ]),
  );
  let hw: RunningHostwarden | undefined;
  try {
    hw = await startHostwarden(['--provider', 'webhook', '--webhook-provider-url', fx.url, '--manifests-dir', manifests, '--txt-owner-id', 'me'], {
      dns: false,
    });
    const url = `http://127.0.0.1:${hw.metricsPort}/metrics`;
    let text = '';
    for (let i = 0; i < 200; i++) {
      text = await (await fetch(url)).text();
      if ((sampleValue(text, 'external_dns_controller_last_sync_timestamp_seconds ') ?? 0) > 0) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok((sampleValue(text, 'external_dns_controller_last_sync_timestamp_seconds ') ?? 0) > 0, 'a sync succeeded');

    const lines = text.split('\n');
    for (const c of data.cases) {
      assert.ok(lines.includes(`# TYPE ${c.name} ${c.type}`), `${c.name} is served as a ${c.type}`);
      const samples = lines.filter((l) => l.startsWith(`${c.name}{`) || l.startsWith(`${c.name} `) || l.startsWith(`${c.name}_sum{`));
      if (NO_SERIES_HERE.has(c.name) && samples.length === 0) continue;
      assert.ok(samples.length > 0, `${c.name} has a series`);
      for (const s of samples) assert.deepEqual(labelNames(s).sort(), [...c.labels].sort(), `${c.name} labels in ${s}`);
    }

    // The values come from the code that knows them.
    assert.equal(sampleValue(text, 'external_dns_build_info{'), 1);
    assert.equal(sampleValue(text, 'external_dns_source_invalid_endpoints{record_type="a",source_type="manifest"}'), 1);
    assert.equal(sampleValue(text, 'external_dns_source_deduplicated_endpoints{record_type="a",source_type="crd"}'), 1);
    assert.equal(
      sampleValue(text, 'external_dns_registry_skipped_records_owner_mismatch_per_sync{record_type="a",owner="me",foreign_owner="other",domain="example.org"}'),
      1,
    );
    assert.equal(sampleValue(text, 'external_dns_webhook_provider_records_errors_total '), 1);
    assert.ok((sampleValue(text, 'external_dns_webhook_provider_records_requests_total ') ?? 0) >= 2);
    assert.ok((sampleValue(text, 'external_dns_webhook_provider_applychanges_requests_total ') ?? 0) >= 1);
    assert.equal(sampleValue(text, 'external_dns_controller_consecutive_soft_errors '), 0, 'reset by the successful retry');
    assert.equal(sampleValue(text, 'external_dns_registry_errors_total '), 1);
    assert.equal(sampleValue(text, 'external_dns_source_records{record_type="aaaa"}'), 1);
    assert.match(
      text,
      /external_dns_http_request_duration_seconds_count\{handler="instrumented_http",scheme="http",host="127\.0\.0\.1:\d+",path="records",method="GET",status="500"\} 1/,
    );
    // Hostwarden's own metrics stay.
    assert.match(text, /# TYPE hostwarden_sync_duration_seconds histogram/);
  } finally {
    await hw?.stop();
    await fx.stop();
    await rm(root, { recursive: true, force: true });
  }
});

test('every upstream metric is listed whatever the provider (embedded here)', { timeout: 120_000 }, async () => {
  const root = await mkdtemp(join(tmpdir(), 'hw-metrics-embedded-'));
  const manifests = join(root, 'manifests');
  await mkdir(manifests);
  await writeFile(join(manifests, 'web.yaml'), dnsEndpoint('web', [{ dnsName: 'www.example.org', recordType: 'A', targets: ['192.0.2.1'] }]));
  let hw: RunningHostwarden | undefined;
  try {
    hw = await startHostwarden(['--manifests-dir', manifests, '--embedded-data-dir', join(root, 'data'), '--embedded-zone', 'example.org']);
    const text = await (await fetch(`http://127.0.0.1:${hw.metricsPort}/metrics`)).text();
    const lines = text.split('\n');
    for (const c of data.cases) assert.ok(lines.includes(`# TYPE ${c.name} ${c.type}`), `${c.name} is served as a ${c.type}`);
    assert.equal(sampleValue(text, 'external_dns_webhook_provider_records_requests_total '), 0, 'a plain gauge shows its 0, as upstream');
  } finally {
    await hw?.stop();
    await rm(root, { recursive: true, force: true });
  }
});
