import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Registry as MetricsRegistry } from 'prom-client';
import { startWebhookFixture } from '../../../test/support/webhook-fixture.ts';
import { FlagValues } from '../../config/config.ts';
import { newEndpoint } from '../../endpoint/endpoint.ts';
import { silentLogger } from '../../log.ts';
import { WebhookProvider } from './client.ts';

async function value(metrics: MetricsRegistry, name: string): Promise<number> {
  const m = (await metrics.getMetricsAsJSON()).find((x) => x.name === name);
  return (m?.values ?? []).reduce((n, v) => n + v.value, 0);
}

test('the webhook client counts calls and failures of each method, and times its HTTP requests', async () => {
  const fx = await startWebhookFixture();
  try {
    const metrics = new MetricsRegistry();
    const flags = new FlagValues(
      new Map(Object.entries({ 'webhook-provider-url': fx.url, 'webhook-provider-read-timeout': 2000, 'webhook-provider-write-timeout': 2000 })),
    );
    const p = await WebhookProvider.fromConfig({ flags, domainFilters: [], excludeDomains: [] }, { logger: silentLogger(), metrics });
    await p.records();
    fx.script.set('GET /records', [{ status: 500 }]);
    await assert.rejects(p.records());
    const ep = newEndpoint({ dnsName: 'www.example.org', recordType: 'A', targets: ['192.0.2.1'] });
    await p.adjustEndpoints([ep]);
    await p.applyChanges({ create: [ep], updateOld: [], updateNew: [], delete: [] });
    fx.script.set('POST /records', [{ status: 400 }]);
    await assert.rejects(p.applyChanges({ create: [ep], updateOld: [], updateNew: [], delete: [] }));

    assert.equal(await value(metrics, 'external_dns_webhook_provider_records_requests_total'), 2);
    assert.equal(await value(metrics, 'external_dns_webhook_provider_records_errors_total'), 1);
    assert.equal(await value(metrics, 'external_dns_webhook_provider_adjustendpoints_requests_total'), 1);
    assert.equal(await value(metrics, 'external_dns_webhook_provider_adjustendpoints_errors_total'), 0);
    assert.equal(await value(metrics, 'external_dns_webhook_provider_applychanges_requests_total'), 2);
    assert.equal(await value(metrics, 'external_dns_webhook_provider_applychanges_errors_total'), 1);
    const text = await metrics.metrics();
    const port = new URL(fx.url).port;
    assert.match(
      text,
      new RegExp(
        `external_dns_http_request_duration_seconds_count\\{handler="instrumented_http",scheme="http",host="127\\.0\\.0\\.1:${port}",path="records",method="GET",status="500"\\} 1`,
      ),
    );
    assert.match(
      text,
      /external_dns_http_request_duration_seconds\{quantile="0\.99",handler="instrumented_http",[^}]*path="adjustendpoints",method="POST",status="200"\}/,
    );
  } finally {
    await fx.stop();
  }
});
