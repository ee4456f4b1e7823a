import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ConfigError } from '../errors.ts';
import { silentLogger } from '../log.ts';
import { CertificateFiles, TlsError, checkPair, selfSignedCertificate } from './tls.ts';

const run = promisify(execFile);
const skip = await run('openssl', ['version']).then(
  () => false,
  () => 'openssl is not installed',
);

describe('serving certificates', { skip }, () => {
  let dir = '';
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'hostwarden-admission-tls-test-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  test('--tls-self-signed makes a certificate for the given names and addresses', async () => {
    const m = await selfSignedCertificate(['localhost', '127.0.0.1', '::1'], { days: 1 });
    const x = new X509Certificate(m.cert);
    assert.match(x.subjectAltName ?? '', /DNS:localhost/);
    assert.match(x.subjectAltName ?? '', /IP Address:127\.0\.0\.1/);
    assert.ok(m.notAfter * 1000 > Date.now());
    assert.ok(x.checkPrivateKey(createPrivateKey(m.key)));
  });

  test('a missing openssl is a configuration error naming the flag', async () => {
    await assert.rejects(selfSignedCertificate(['localhost'], { openssl: join(dir, 'no-such-openssl') }), (err: unknown) => {
      assert.ok(err instanceof ConfigError);
      assert.equal(err.flag, '--tls-self-signed');
      return true;
    });
  });

  test('a key that does not belong to the certificate is refused', async () => {
    const a = await selfSignedCertificate(['a'], { days: 1 });
    const b = await selfSignedCertificate(['b'], { days: 1 });
    assert.throws(() => checkPair(b.key, a.cert, 'pair'), TlsError);
    await writeFile(join(dir, 'tls.crt'), a.cert);
    await writeFile(join(dir, 'tls.key'), b.key);
    const files = new CertificateFiles({ certFile: join(dir, 'tls.crt'), keyFile: join(dir, 'tls.key'), logger: silentLogger() });
    await assert.rejects(files.load(), (err: unknown) => err instanceof ConfigError && err.flag === '--tls-cert-file');
    const missing = new CertificateFiles({ certFile: join(dir, 'tls.crt'), keyFile: join(dir, 'none.key'), logger: silentLogger() });
    await assert.rejects(missing.load(), (err: unknown) => err instanceof ConfigError && err.flag === '--tls-private-key-file');
    await writeFile(join(dir, 'tls.key'), a.key);
    assert.deepEqual((await files.load()).cert, await readFile(join(dir, 'tls.crt')));
  });
});
