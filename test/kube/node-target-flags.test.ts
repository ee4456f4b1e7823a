import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EXTRA_FLAGS, PROVIDER_NAMES, SOURCE_NAMES } from '../../src/cli/wiring.ts';
import { resolveConfig } from '../../src/config/config.ts';
import { FLAGS } from '../../src/config/flags.ts';
import { parseArgs } from '../../src/config/parse.ts';
import { translateOptionsOf } from '../../src/source/kube/factory.ts';

function optionsOf(args: string[], env: Record<string, string> = {}): ReturnType<typeof translateOptionsOf> {
  return translateOptionsOf(
    resolveConfig(parseArgs(['--source', 'service', ...args], env, [...FLAGS, ...EXTRA_FLAGS]), { sources: SOURCE_NAMES, providers: PROVIDER_NAMES }),
  );
}

test('node target flags: upstream defaults (cordoned nodes excluded, internal IPv6 not exposed), --no- and env forms', () => {
  assert.deepEqual([optionsOf([]).excludeUnschedulable, optionsOf([]).exposeInternalIPv6], [true, false]);
  const set = optionsOf(['--no-exclude-unschedulable', '--expose-internal-ipv6']);
  assert.deepEqual([set.excludeUnschedulable, set.exposeInternalIPv6], [false, true]);
  const env = optionsOf([], { EXTERNAL_DNS_EXCLUDE_UNSCHEDULABLE: 'false', EXTERNAL_DNS_EXPOSE_INTERNAL_IPV6: 'true' });
  assert.deepEqual([env.excludeUnschedulable, env.exposeInternalIPv6], [false, true]);
});
