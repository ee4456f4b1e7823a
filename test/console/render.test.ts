/**
 * The console page in headless Chromium against the contract fixture (test/support/console-fixture.ts):
 * rendering edge cases the real process rarely shows (markup in record data, a failed sync, a dry
 * run, no DNS server, a refused event stream), live updates, filters, and axe-core in both colour
 * schemes. The end-to-end test against `hostwarden run` is browser.test.ts.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { ARTIFACTS_DIR, axeViolations, chromiumSkipReason, launchChromium, seriousViolations } from '../support/chromium.ts';
import { sampleData, startConsoleFixture } from '../support/console-fixture.ts';
import type { ConsoleFixture } from '../support/console-fixture.ts';

const skip = chromiumSkipReason();

async function openPage(browser: Browser, fixture: ConsoleFixture): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors: string[] = [];
  page.on('console', (m) => m.type() === 'error' && !m.text().includes('503') && errors.push(m.text()));
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(fixture.url);
  await page.locator('#records-table tbody td.name').first().waitFor({ timeout: 5000 });
  return { page, errors };
}

const rowTexts = (page: Page, selector: string): Promise<string[]> => page.locator(selector).allInnerTexts();

/** Polls (bounded) until the records table has `n` rows. */
async function waitForRows(page: Page, n: number, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let rows = -1;
  while (Date.now() < deadline) {
    rows = await page.locator('#records-table tbody tr').count();
    if (rows === n) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.fail(`expected ${n} record rows within ${timeoutMs} ms, saw ${rows}`);
}

describe('console page (fixture)', { skip }, () => {
  let browser: Browser;
  let fixture: ConsoleFixture;
  before(async () => {
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
  });

  test('records, owners, plan, source objects and charts; record data stays text', async () => {
    fixture = await startConsoleFixture();
    const { page, errors } = await openPage(browser, fixture);
    try {
      const rows = await rowTexts(page, '#records-table tbody tr');
      assert.equal(rows.length, 8);
      const api = rows.find((r) => r.startsWith('api.example.org')) ?? '';
      assert.match(api, /another owner\s+cluster-b\s+ingress\/team-b\/api/);
      assert.match(rows.find((r) => r.startsWith('legacy')) ?? '', /nobody/);
      // A TXT value with markup is shown as its characters, never parsed or run.
      assert.match(rows.find((r) => r.startsWith('note')) ?? '', /<b>not bold<\/b><script>/);
      assert.equal(await page.locator('#records-table b, #records-table script').count(), 0);
      assert.equal(await page.title(), 'Hostwarden console');

      assert.match(await page.locator('#plan-summary').innerText(), /1 to create, 1 to update, 1 to delete/);
      const plan = await page.locator('#plan-body').innerText();
      assert.match(plan, /blog\.example\.org/);
      assert.match(plan, /targets\s+192\.0\.2\.10\s+192\.0\.2\.11/);
      assert.deepEqual(await page.locator('#plan-body del').allInnerTexts(), ['192.0.2.10', '300']);
      assert.deepEqual(await page.locator('#plan-body ins').allInnerTexts(), ['192.0.2.11', '600']);
      assert.match(plan, /ttl\s+300\s+600/);
      assert.match(plan, /old\.example\.org/);

      const sources = await page.locator('#sources-body').innerText();
      assert.match(sources, /ingress\/default\/app[\s\S]*api\.example\.org\s+CNAME\s+lb\.example\.net\s+skip\s+owned by another owner "cluster-b"/);

      assert.equal(await page.locator('#charts figure svg[role="img"]').count(), 4);
      const label = await page.locator('#chart-syncs svg').getAttribute('aria-labelledby');
      assert.match(await page.locator(`#${label}`).innerText(), /^Syncs: 68 in the last hour; peak 2 per 10 s/);
      assert.match(await page.locator('#live').innerText(), /live/);
      assert.match(await page.locator('#sync').innerText(), /Outcome\s+ok/);
      assert.deepEqual(errors, [], 'no script errors and no CSP violations');
      await page.screenshot({ path: `${ARTIFACTS_DIR}fixture-full.png`, fullPage: true });
    } finally {
      await page.close();
      await fixture.close();
    }
  });

  test('filters query the records API', async () => {
    fixture = await startConsoleFixture();
    const { page } = await openPage(browser, fixture);
    try {
      await page.selectOption('#record-filter select[name="ownership"]', 'other');
      await waitForRows(page, 1);
      assert.match((await rowTexts(page, '#records-table tbody tr'))[0] ?? '', /^api\.example\.org/);
      assert.match(await page.locator('#records-caption').innerText(), /1 record matching the filter/);
      await page.selectOption('#record-filter select[name="ownership"]', '');
      await page.fill('#record-filter input[name="source"]', 'CRD/');
      await waitForRows(page, 3);
      await page.fill('#record-filter input[name="type"]', 'aaaa');
      await waitForRows(page, 1);
      await page.fill('#record-filter input[name="name"]', 'nothing-here');
      await page.locator('#records-table tbody', { hasText: 'No record matches' }).waitFor({ timeout: 3000 });
      assert.ok(fixture.requests.some((r) => r.startsWith('/ui/api/records?') && r.includes('type=aaaa') && r.includes('source=CRD%2F')));
    } finally {
      await page.close();
      await fixture.close();
    }
  });

  test('explain: decisions, problems, nothing, and a refused name', async () => {
    fixture = await startConsoleFixture();
    const { page } = await openPage(browser, fixture);
    const ask = async (name: string): Promise<string> => {
      await page.fill('#explain-name', name);
      await page.click('#explain-form button');
      await page.locator('#explain-result', { hasText: name }).waitFor({ timeout: 3000 });
      return page.locator('#explain-result').innerText();
    };
    try {
      assert.match(await ask('api.example.org'), /skip\s+CNAME\s+ingress\/default\/app\s+cluster-b\s+owned by another owner "cluster-b"/);
      assert.match(await ask('bad.example.org'), /invalid input: service\/default\/bad: annotation/);
      assert.match(await ask('nobody.example.org'), /Nothing: no source asks for this name/);
      assert.match(await ask('not a name'), /Cannot explain "not a name": "not a name" is not a DNS name/);
      assert.equal(await page.locator('#explain-result [role="alert"]').count(), 1);
    } finally {
      await page.close();
      await fixture.close();
    }
  });

  test('live: a state event updates header, plan and records; a refused stream shows "reconnecting" and recovers', async () => {
    fixture = await startConsoleFixture();
    const { page } = await openPage(browser, fixture);
    try {
      await page.evaluate(() => ((globalThis as unknown as { marker: number }).marker = 1));
      const now = Date.now();
      const data = fixture.data;
      data.state.sync = { ...data.state.sync, lastAttemptAt: now, outcome: 'failed', error: 'provider: zone file not writable', consecutiveFailures: 3 };
      data.state.plan = { creates: [], updates: [], deletes: [] };
      const added = { ...sampleData(now).records[0]!, name: 'zz-new.example.org', ownership: 'this' as const, owner: 'default' };
      data.records.push(added);
      data.state.lastApplied = { creates: [added], updates: [], deletes: [] };
      fixture.pushState();
      await page.locator('#sync-error').filter({ hasText: 'zone file not writable' }).waitFor({ timeout: 2000 });
      assert.match(await page.locator('#sync').innerText(), /Outcome\s+failed[\s\S]*Failures in a row\s+3/);
      assert.match(await page.locator('#plan-summary').innerText(), /No changes pending/);
      assert.match(await page.locator('#plan-body').innerText(), /Applied by the last sync: 1 created, 0 updated, 0 deleted[\s\S]*zz-new\.example\.org/);
      await page.locator('#records-table td.name', { hasText: 'zz-new.example.org' }).waitFor({ timeout: 2000 });

      data.history.series.dnsQueries = null;
      fixture.pushHistory();
      await page.locator('#chart-dnsQueries', { hasText: 'Not available' }).waitFor({ timeout: 2000 });

      fixture.dropStreams(true);
      await page.locator('#live[data-state="reconnecting"]').waitFor({ timeout: 5000 });
      assert.equal(await page.locator('#live').innerText(), 'reconnecting');
      fixture.dropStreams(false);
      await page.locator('#live[data-state="live"]').waitFor({ timeout: 8000 });
      assert.equal(await page.evaluate(() => (globalThis as unknown as { marker?: number }).marker), 1, 'the page did not reload');
      await page.screenshot({ path: `${ARTIFACTS_DIR}fixture-failed.png` });
    } finally {
      await page.close();
      await fixture.close();
    }
  });

  test('before the first sync, in a dry run: no plan yet, and says it applies nothing', async () => {
    const data = sampleData(Date.now());
    data.state.instance.dryRun = true;
    data.state.sync = { lastAttemptAt: null, lastSuccessAt: null, nextAt: null, outcome: 'none', error: null, consecutiveFailures: 0, applying: false };
    data.state.plan = { creates: [], updates: [], deletes: [] };
    data.records = [];
    data.sources = { objects: [] };
    fixture = await startConsoleFixture(data);
    const page = await browser.newPage();
    try {
      await page.goto(fixture.url);
      await page.locator('#records-table tbody td.muted').waitFor({ timeout: 5000 });
      assert.match(await page.locator('#records-table tbody').innerText(), /holds no records/);
      assert.match(await page.locator('#plan-summary').innerText(), /No sync has finished yet\. This instance applies nothing \(dry run\)/);
      assert.match(await page.locator('#sync').innerText(), /Last sync\s+never[\s\S]*no sync yet[\s\S]*Applies changes\s+no: dry run/);
      assert.match(await page.locator('#instance').innerText(), /Mode\s+dry run/);
      assert.match(await page.locator('#sources-body').innerText(), /No source object asks for records/);
    } finally {
      await page.close();
      await fixture.close();
    }
  });

  test('axe-core: no serious or critical violations, light and dark', async () => {
    fixture = await startConsoleFixture();
    const { page } = await openPage(browser, fixture);
    try {
      await page.fill('#explain-name', 'api.example.org');
      await page.press('#explain-name', 'Enter');
      await page.locator('#explain-result table').waitFor();
      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        assert.deepEqual(seriousViolations(await axeViolations(page)), [], scheme);
        await page.screenshot({ path: `${ARTIFACTS_DIR}fixture-${scheme}.png` });
      }
    } finally {
      await page.close();
      await fixture.close();
    }
  });
});
