import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { FlagValues } from '../config/config.ts';
import type { FlagValue } from '../config/parse.ts';
import { ConfigError } from '../errors.ts';
import { silentLogger } from '../log.ts';
import { opensslUnavailable } from '../../test/support/tls.ts';
import { loadServingTls, servingTlsFlags } from './serving-tls.ts';

const flags = (values: Record<string, FlagValue>): FlagValues => new FlagValues(new Map(Object.entries(values)));
const refused =
  (flag: string, message: RegExp) =>
  (err: unknown): boolean =>
    err instanceof ConfigError && err.message.includes(flag) && message.test(err.message);

describe('servingTlsFlags', () => {
  test('files, or self-signed, are accepted', () => {
    assert.deepEqual(servingTlsFlags(flags({ 'tls-cert-file': 'c', 'tls-private-key-file': 'k' }), 'x serves HTTPS'), {
      certFile: 'c',
      keyFile: 'k',
      selfSigned: false,
    });
    assert.deepEqual(servingTlsFlags(flags({ 'tls-self-signed': true }), 'x serves HTTPS'), { certFile: '', keyFile: '', selfSigned: true });
  });

  test('both, or a missing file, are refused naming the flag and the server', () => {
    assert.throws(
      () => servingTlsFlags(flags({ 'tls-self-signed': true, 'tls-cert-file': 'c' }), 'x serves HTTPS'),
      refused('--tls-self-signed', /cannot be used/),
    );
    assert.throws(
      () => servingTlsFlags(flags({ 'tls-cert-file': 'c' }), 'x serves HTTPS'),
      refused('--tls-private-key-file', /^x serves HTTPS: set .* \(or --tls-self-signed for local use\)$/),
    );
    assert.throws(
      () => servingTlsFlags(flags({}), 'y serve HTTPS', 'none'),
      refused('--tls-cert-file', /^y serve HTTPS: set --tls-cert-file and --tls-private-key-file, --tls-self-signed for local use, or none$/),
    );
  });
});

test('loadServingTls makes a self-signed certificate without files', { skip: (await opensslUnavailable()) ?? false }, async () => {
  const tls = await loadServingTls({ certFile: '', keyFile: '', selfSigned: true }, silentLogger());
  assert.equal(tls.files, undefined);
  assert.match(tls.material.cert.toString(), /BEGIN CERTIFICATE/);
});
