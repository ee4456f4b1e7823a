import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ConfigError } from '../errors.ts';
import { resolveConfig } from './config.ts';
import { parseDuration } from './duration.ts';
import { FLAGS } from './flags.ts';
import { parseArgs } from './parse.ts';

const choices = { sources: ['manifest', 'service'], providers: ['embedded', 'inmemory'] };
const resolve = (argv: string[], env: Record<string, string> = {}) => resolveConfig(parseArgs(argv, env), choices);

function assertConfigError(fn: () => unknown, flag: string, pattern: RegExp): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof ConfigError, `expected ConfigError, got ${String(err)}`);
    assert.equal(err.flag, flag);
    assert.match(err.message, pattern);
    return true;
  });
}

describe('flag parsing', () => {
  test('defaults match external-dns where the flag exists', () => {
    const cfg = resolve([]);
    assert.equal(cfg.txtOwnerId, 'default');
    assert.equal(cfg.policy, 'sync');
    assert.deepEqual(cfg.managedRecordTypes, ['A', 'AAAA', 'CNAME']);
    assert.equal(cfg.intervalMs, 60_000);
    assert.equal(cfg.minEventSyncIntervalMs, 5_000);
    assert.equal(cfg.metricsAddress, ':7979');
    assert.equal(cfg.registry, 'txt');
    assert.equal(cfg.provider, 'embedded');
  });

  test('--flag=value, --flag value, repeated lists and comma lists', () => {
    const cfg = resolve(['--domain-filter=example.org', '--domain-filter', 'example.com,example.net', '--txt-owner-id', 'c1', '--interval=30s']);
    assert.deepEqual(cfg.domainFilters, ['example.org', 'example.com', 'example.net']);
    assert.equal(cfg.txtOwnerId, 'c1');
    assert.equal(cfg.intervalMs, 30_000);
  });

  test('template flags are repeatable and keep their values whole (a comma may sit inside a template)', () => {
    const cfg = resolve(['--fqdn-template', '{{.Name}}.a.org,{{printf ","}}', '--fqdn-template={{.Name}}.b.org', '--fqdn-target-template', 'x:1.2.3.4']);
    assert.deepEqual(cfg.fqdnTemplates, ['{{.Name}}.a.org,{{printf ","}}', '{{.Name}}.b.org']);
    assert.deepEqual(cfg.fqdnTargetTemplates, ['x:1.2.3.4']);
    assert.deepEqual(cfg.targetTemplates, []);
    assert.deepEqual(resolve([], { EXTERNAL_DNS_FQDN_TEMPLATE: '{{.Name}}.a.org\n{{.Name}}.b.org' }).fqdnTemplates, ['{{.Name}}.a.org', '{{.Name}}.b.org']);
  });

  test('booleans: bare, =false and --no-', () => {
    assert.equal(resolve(['--once']).once, true);
    assert.equal(resolve(['--once=false']).once, false);
    assert.equal(resolve(['--no-dry-run']).dryRun, false);
  });

  test('EXTERNAL_DNS_* environment variables, argv wins', () => {
    const env = { EXTERNAL_DNS_TXT_OWNER_ID: 'from-env', EXTERNAL_DNS_DOMAIN_FILTER: 'a.org\nb.org', EXTERNAL_DNS_ONCE: 'true' };
    const cfg = resolve([], env);
    assert.equal(cfg.txtOwnerId, 'from-env');
    assert.deepEqual(cfg.domainFilters, ['a.org', 'b.org']);
    assert.equal(cfg.once, true);
    assert.equal(resolve(['--txt-owner-id=argv'], env).txtOwnerId, 'argv');
    assert.ok(resolve([], env).explicit.has('txt-owner-id'));
  });

  test('the empty owner id is allowed (disables ownership checks)', () => {
    assert.equal(resolve(['--txt-owner-id=']).txtOwnerId, '');
  });

  test('unknown flags name the flag', () => {
    assertConfigError(() => resolve(['--txt-owner', 'x']), '--txt-owner', /unknown flag --txt-owner/);
    assertConfigError(() => resolve(['-x']), '-x', /unknown flag -x/);
  });

  test('bad values name the flag', () => {
    assertConfigError(() => resolve(['--interval=soon']), '--interval', /--interval takes a duration/);
    assertConfigError(() => resolve(['--policy=delete-all']), '--policy', /must be one of sync, upsert-only, create-only/);
    assertConfigError(() => resolve(['--provider=nope']), '--provider', /not supported/);
    assertConfigError(() => resolve(['--source=nope']), '--source', /not supported/);
    assertConfigError(() => resolve(['--managed-record-types=A,BOGUS']), '--managed-record-types', /BOGUS/);
    assertConfigError(() => resolve(['--regex-domain-filter=(']), '--regex-domain-filter', /not a valid regular expression/);
    assertConfigError(() => resolve(['--metrics-address=nowhere']), '--metrics-address', /host:port/);
    assertConfigError(() => resolve(['--dns-workers=abc']), '--dns-workers', /whole number/);
    assertConfigError(() => resolve(['--txt-owner-id']), '--txt-owner-id', /needs a value/);
  });

  test('cross-flag rules', () => {
    assertConfigError(() => resolve(['--interval=0s']), '--interval', /greater than 0/);
  });

  test('record types are upper-cased', () => {
    assert.deepEqual(resolve(['--managed-record-types=a,txt']).managedRecordTypes, ['A', 'TXT']);
  });

  test('positionals are returned for explain', () => {
    assert.deepEqual(parseArgs(['www.example.org', '--once'], {}).positionals, ['www.example.org']);
  });
});

describe('flags declared by providers and sources', () => {
  test('are parsed, env-mapped and read through cfg.flags', () => {
    const extra = [
      { name: 'demo-host', kind: 'string' as const, default: 'localhost', help: '' },
      { name: 'demo-zone', kind: 'list' as const, default: [], help: '' },
      { name: 'demo-timeout', kind: 'duration' as const, default: '10s', help: '' },
    ];
    const cfg = resolveConfig(
      parseArgs(['--demo-zone=a.org,b.org', '--demo-zone', 'c.org'], { EXTERNAL_DNS_DEMO_TIMEOUT: '1m' }, [...FLAGS, ...extra]),
      choices,
    );
    assert.equal(cfg.flags.str('demo-host'), 'localhost');
    assert.deepEqual(cfg.flags.list('demo-zone'), ['a.org', 'b.org', 'c.org']);
    assert.equal(cfg.flags.num('demo-timeout'), 60_000);
    assertConfigError(() => parseArgs(['--demo-host=x'], {}), '--demo-host', /unknown flag/);
  });
});

describe('durations', () => {
  test('Go forms', () => {
    assert.equal(parseDuration('1m'), 60_000);
    assert.equal(parseDuration('1h30m'), 5_400_000);
    assert.equal(parseDuration('500ms'), 500);
    assert.equal(parseDuration('2.5s'), 2_500);
    assert.equal(parseDuration('90'), 90_000);
    assert.equal(parseDuration('0s'), 0);
    assert.equal(parseDuration('1x'), undefined);
    assert.equal(parseDuration(''), undefined);
    assert.equal(parseDuration('m'), undefined);
  });
});
