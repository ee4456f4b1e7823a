/**
 * external-dns's flag syntax and the flags a real Deployment passes: what Hostwarden lacks stops
 * start-up with one line naming the provider, source or registry (never "unknown flag"); the
 * generic flags parse with kingpin's syntax; --version prints the version alone.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { readFileSync } from 'node:fs';
import { parseCommandArgs } from '../../src/cli/commands.ts';
import { main } from '../../src/cli/main.ts';
import { PROVIDER_NAMES, SOURCE_NAMES } from '../../src/cli/wiring.ts';
import { resolveConfig } from '../../src/config/config.ts';
import type { Config } from '../../src/config/config.ts';
import { UNIMPLEMENTED_FLAGS, UNIMPLEMENTED_PROVIDERS, UNIMPLEMENTED_REGISTRIES, UNIMPLEMENTED_SOURCES } from '../../src/config/upstream-flags.ts';

const config = (argv: string[], env: Record<string, string> = {}): Config =>
  resolveConfig(parseCommandArgs('run', argv, env), { sources: SOURCE_NAMES, providers: PROVIDER_NAMES });

async function cli(argv: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const sink = (write: (s: string) => void): NodeJS.WriteStream =>
    new Writable({
      write(chunk: Buffer, _enc, done) {
        write(chunk.toString());
        done();
      },
    }) as unknown as NodeJS.WriteStream;
  const code = await main({ argv, env, stdout: sink((s) => (stdout += s)), stderr: sink((s) => (stderr += s)), onSignal: () => undefined });
  return { code, stdout, stderr };
}

const WEBHOOK_HINT = (p: string): string => `run external-dns's ${p} provider as a webhook and use --provider=webhook`;

describe('external-dns flags Hostwarden does not implement', () => {
  test('--ovh-enable-cname-relative, --no-ovh-enable-cname-relative, --ovh-enable-cname-relative=false and EXTERNAL_DNS_OVH_ENABLE_CNAME_RELATIVE: one line naming provider ovh', async () => {
    const line = `belongs to provider ovh, which Hostwarden does not implement; ${WEBHOOK_HINT('ovh')}`;
    const flag = '--ovh-enable-cname-relative';
    for (const argv of [[flag], ['--no-ovh-enable-cname-relative'], [`${flag}=false`], ['--source=service', flag]]) {
      const r = await cli(argv);
      assert.equal(r.code, 2, argv.join(' '));
      const written = argv[0] === '--no-ovh-enable-cname-relative' ? '--no-ovh-enable-cname-relative' : flag;
      assert.equal(r.stderr, `hostwarden: ${written} ${line}\n`, argv.join(' '));
    }
    const env = await cli(['--source=service'], { EXTERNAL_DNS_OVH_ENABLE_CNAME_RELATIVE: 'true' });
    assert.equal(env.code, 2);
    assert.equal(env.stderr, `hostwarden: EXTERNAL_DNS_OVH_ENABLE_CNAME_RELATIVE (${flag}) ${line}\n`);
    const value = await cli(['--ovh-endpoint', 'ovh-eu']);
    assert.match(value.stderr, /^hostwarden: --ovh-endpoint belongs to provider ovh/);
  });

  test('every flag of an unimplemented provider, source or registry says which, in one line', () => {
    for (const group of UNIMPLEMENTED_FLAGS) {
      for (const flag of group.flags) {
        assert.throws(
          () => config([`--${flag}=x`]),
          (err: Error) => {
            assert.match(err.message, new RegExp(`^--${flag} belongs to ${group.kind} ${group.owner}, which Hostwarden does not implement; `));
            assert.doesNotMatch(err.message, /\n|unknown flag/);
            return true;
          },
        );
      }
    }
    assert.throws(() => config(['--crd-registry-namespace=dns']), {
      message:
        '--crd-registry-namespace belongs to registry crd, which Hostwarden does not implement; run external-dns with --registry=crd and --provider=webhook against "hostwarden webhook-server"',
    });
    assert.throws(() => config(['--dynamodb-table', 't']), {
      message: /^--dynamodb-table belongs to registry dynamodb, which Hostwarden does not implement; run external-dns with --registry=dynamodb/,
    });
  });

  test('--provider, --source and --registry naming what Hostwarden lacks say the same kind of thing', async () => {
    for (const p of UNIMPLEMENTED_PROVIDERS)
      assert.throws(() => config([`--provider=${p}`]), {
        message: `--provider=${p} is an external-dns provider Hostwarden does not implement; ${WEBHOOK_HINT(p)}`,
      });
    for (const s of UNIMPLEMENTED_SOURCES)
      assert.throws(() => config(['--source', 'service', '--source', s]), {
        message: `--source=${s} is an external-dns source Hostwarden does not implement; run external-dns with --source=${s} and --provider=webhook against "hostwarden webhook-server"`,
      });
    for (const r of UNIMPLEMENTED_REGISTRIES)
      assert.throws(() => config([`--registry=${r}`]), { message: new RegExp(`^--registry=${r} is an external-dns registry Hostwarden does not implement; `) });
    const r = await cli(['--provider', 'ovh']);
    assert.equal(r.code, 2);
    assert.equal(r.stderr.split('\n').length, 2);
    // A name external-dns does not know either stays an ordinary error.
    assert.throws(() => config(['--provider=nonesuch']), /--provider "nonesuch" is not supported/);
    assert.throws(() => config(['--no-such-flag']), /unknown flag --no-such-flag/);
  });
});

describe("external-dns's generic flags", () => {
  test("kingpin's syntax: --flag=value, --flag value, --flag/--no-flag/--flag=false for bools, repeated flags", () => {
    const cfg = config([
      '--interval=30s',
      '--min-event-sync-interval',
      '2s',
      '--source=service',
      '--source',
      'ingress',
      '--once',
      '--no-dry-run',
      '--events=false',
    ]);
    assert.equal(cfg.intervalMs, 30_000);
    assert.equal(cfg.minEventSyncIntervalMs, 2000);
    assert.deepEqual(cfg.sources, ['service', 'ingress']);
    assert.equal(cfg.once, true);
    assert.equal(cfg.dryRun, false);
    assert.equal(cfg.flags.bool('events'), false);
    assert.equal(config(['--events']).flags.bool('events'), true);
    assert.equal(config([], { EXTERNAL_DNS_EVENTS: '1' }).flags.bool('events'), true);
    // Go's ParseBool spellings, as kingpin reads them.
    assert.equal(config([], { EXTERNAL_DNS_EVENTS: 'T' }).flags.bool('events'), true);
    assert.equal(config(['--dry-run=F']).dryRun, false);
    assert.deepEqual(config([], { EXTERNAL_DNS_SOURCE: 'service\ningress' }).sources, ['service', 'ingress']);
  });

  test('--log-level takes logrus levels: warning (as warn) and panic (as fatal)', () => {
    assert.equal(config(['--log-level=warning']).logLevel, 'warn');
    assert.equal(config(['--log-level', 'panic']).logLevel, 'fatal');
    for (const level of ['trace', 'debug', 'info', 'error', 'fatal']) assert.equal(config([`--log-level=${level}`]).logLevel, level);
    assert.throws(() => config(['--log-level=loud']), /--log-level must be one of/);
  });

  test('--events-emit: repeatable, default none; --emit-events and EXTERNAL_DNS_EMIT_EVENTS are aliases', () => {
    assert.deepEqual(config([]).flags.list('events-emit'), []);
    assert.deepEqual(config(['--events-emit=RecordReady', '--events-emit', 'RecordError']).flags.list('events-emit'), ['RecordReady', 'RecordError']);
    assert.deepEqual(config(['--emit-events=RecordDeleted']).flags.list('events-emit'), ['RecordDeleted']);
    assert.deepEqual(config([], { EXTERNAL_DNS_EMIT_EVENTS: 'RecordReady' }).flags.list('events-emit'), ['RecordReady']);
    assert.deepEqual(config([], { EXTERNAL_DNS_EVENTS_EMIT: 'RecordError' }).flags.list('events-emit'), ['RecordError']);
  });

  test('--version prints the version alone and exits 0, wherever it stands; --no-version changes nothing', async () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    for (const argv of [['--version'], ['--source=service', '--version'], ['run', '--provider=aws', '--version=true'], ['--version=1']]) {
      const r = await cli(argv);
      assert.equal(r.code, 0, argv.join(' '));
      assert.equal(r.stdout, `${pkg.version}\n`);
      assert.equal(r.stderr, '');
    }
    assert.equal(config(['--no-version']).flags.bool('version'), false);
  });

  test('--help says --events is accepted because Hostwarden is always event-driven, and lists the aliases', async () => {
    const help = (await cli(['--help'])).stdout;
    assert.match(help, /--events +Accepted for external-dns: Hostwarden is always event-driven/);
    assert.match(help, /--events-emit, --emit-events VALUE/);
    assert.match(help, /--provider-cache-time VALUE/);
    assert.match(help, /--kube-api-qps VALUE .*\(default 5\)/);
    assert.match(help, /--server VALUE/);
  });
});
