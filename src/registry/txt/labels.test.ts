import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { RegistryError } from '../../errors.ts';
import { decodeOwnershipValue, encodeOwnershipValue, looksEncrypted, parseLabels, parseLabelsOrThrow, serializeLabels } from './labels.ts';

// Values from external-dns's endpoint/labels_test.go.
const AES_KEY = Buffer.from(')K_Fy|?Z.64#UuHm`}[d!GC%WJM_fs{_');
const FOO = { owner: 'foo-owner', resource: 'foo-resource' };
const FOO_TEXT = 'heritage=external-dns,external-dns/owner=foo-owner,external-dns/resource=foo-resource';
const FOO_ENCRYPTED =
  '+lvP8q9KHJ6BS6O81i2Q6DLNdf2JSKy8j/gbZKviTZlGYj7q+yDoYMgkQ1hPn6urtGllM5bfFMcaaHto52otQtiOYrX8990J3kQqg4s47G27hzNNpXlckPuVVSGSLOQ25dQ9IBuqjbc=';
const BAR_TEXT =
  'heritage=external-dns,,external-dns/owner=bar-owner,external-dns/resource=bar-resource,external-dns/new-key=bar-new-key,random=stuff,no-equal-sign,,';
const BAR_ENCRYPTED =
  'yi6vVATlgYN0enXBIupVK2atNUKtajofWMroWtvZjUanFZXlWvqjJPpjmMd91kv86bZj+syQEP0uR3TK6eFVV7oKFh/NxYyh238FjZ+25zlXW9TgbLoMalUNOkhKFdfXkLeeaqJjePB59t+kQBYX+ZEryK652asPs6M+xTIvtg07N7WWZ6SjJujm0RRISg==';
const BAR = { owner: 'bar-owner', resource: 'bar-resource', 'new-key': 'bar-new-key' };

describe('serializeLabels', () => {
  test('writes the exact external-dns text, quoted by default', () => {
    assert.equal(serializeLabels(FOO, false), FOO_TEXT);
    assert.equal(serializeLabels(FOO), `"${FOO_TEXT}"`);
  });

  test('sorts keys byte-wise regardless of insertion order', () => {
    assert.equal(
      serializeLabels({ resource: 'ingress/default/web', owner: 'default', Zeta: 'z' }, false),
      'heritage=external-dns,external-dns/Zeta=z,external-dns/owner=default,external-dns/resource=ingress/default/web',
    );
  });

  test('never writes the encryption nonce in clear text', () => {
    assert.equal(serializeLabels({ ...FOO, 'txt-encryption-nonce': 'abc' }, false), FOO_TEXT);
  });

  test('empty labels still carry the heritage', () => {
    assert.equal(serializeLabels({}), '"heritage=external-dns"');
  });
});

describe('parseLabels', () => {
  test('reads quoted and unquoted values', () => {
    assert.deepEqual(parseLabels(FOO_TEXT), FOO);
    assert.deepEqual(parseLabels(`"${FOO_TEXT}"`), FOO);
  });

  test('skips gibberish tokens and foreign keys', () => {
    assert.deepEqual(parseLabels(BAR_TEXT), BAR);
  });

  test('keeps "=" inside a value', () => {
    assert.deepEqual(parseLabels('heritage=external-dns,external-dns/owner=team=platform,external-dns/resource=ingress/default/example'), {
      owner: 'team=platform',
      resource: 'ingress/default/example',
    });
  });

  test('rejects values without, with a wrong, or with a conflicting heritage', () => {
    assert.equal(parseLabels('external-dns/owner=random-owner'), undefined);
    assert.equal(parseLabels('heritage=mate,external-dns/owner=random-owner'), undefined);
    assert.equal(parseLabels('heritage=mate,heritage=external-dns,external-dns/owner=random-owner'), undefined);
    assert.equal(parseLabels('v=spf1 include:_spf.example.org ~all'), undefined);
  });

  test('parseLabelsOrThrow throws a RegistryError', () => {
    assert.throws(
      () => parseLabelsOrThrow('random'),
      (err: unknown) => err instanceof RegistryError && err.code === 'REGISTRY_FAILED',
    );
    assert.deepEqual(parseLabelsOrThrow(FOO_TEXT), FOO);
  });
});

describe('ownership values with encryption', () => {
  test('decrypts values written by external-dns and keeps their nonce', () => {
    const foo = decodeOwnershipValue(FOO_ENCRYPTED, AES_KEY);
    assert.deepEqual(foo, { ...FOO, 'txt-encryption-nonce': '+lvP8q9KHJ6BS6O8' });
    const bar = decodeOwnershipValue(`"${BAR_ENCRYPTED}"`, AES_KEY);
    assert.deepEqual(bar, { ...BAR, 'txt-encryption-nonce': 'yi6vVATlgYN0enXB' });
  });

  test("re-encrypting with the kept nonce gives external-dns's exact bytes", () => {
    const foo = decodeOwnershipValue(FOO_ENCRYPTED, AES_KEY);
    assert.ok(foo !== undefined);
    assert.equal(encodeOwnershipValue(foo, AES_KEY), `"${FOO_ENCRYPTED}"`);
  });

  test('a new value gets a fresh nonce and round-trips', () => {
    const a = encodeOwnershipValue(FOO, AES_KEY);
    const b = encodeOwnershipValue(FOO, AES_KEY);
    assert.notEqual(a, b);
    const decoded = decodeOwnershipValue(a, AES_KEY);
    assert.equal(decoded?.owner, 'foo-owner');
    assert.equal(decoded?.resource, 'foo-resource');
  });

  test('plain values are still read when a key is configured', () => {
    assert.deepEqual(decodeOwnershipValue(`"${FOO_TEXT}"`, AES_KEY), FOO);
  });

  test('a wrong key reads as not ownership data', () => {
    assert.equal(decodeOwnershipValue(FOO_ENCRYPTED, Buffer.from('passphrasewhichneedstobe32bytes!')), undefined);
  });

  test('without encryption the plain quoted text is written', () => {
    assert.equal(encodeOwnershipValue(FOO, undefined), `"${FOO_TEXT}"`);
  });

  test('looksEncrypted tells ciphertext from label text', () => {
    assert.equal(looksEncrypted(`"${FOO_ENCRYPTED}"`), true);
    assert.equal(looksEncrypted(FOO_TEXT), false);
  });
});

describe('round trip', () => {
  test('parse(serialize(labels)) gives the labels back, plain and encrypted', () => {
    const key = fc.stringMatching(/^[a-z][a-z0-9./-]{0,15}$/).filter((k) => k !== 'txt-encryption-nonce');
    const value = fc.stringMatching(/^[A-Za-z0-9._/=:-]{0,30}$/);
    fc.assert(
      fc.property(fc.dictionary(key, value, { maxKeys: 5 }), (generated) => {
        const labels = { ...generated };
        assert.deepEqual(parseLabels(serializeLabels(labels)), labels);
        const decoded = decodeOwnershipValue(encodeOwnershipValue(labels, AES_KEY), AES_KEY);
        assert.ok(decoded !== undefined);
        const { 'txt-encryption-nonce': nonce, ...rest } = decoded;
        assert.equal(typeof nonce, 'string');
        assert.deepEqual(rest, labels);
      }),
      { numRuns: 200 },
    );
  });
});
