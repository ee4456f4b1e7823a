import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, RegistryError } from '../../errors.ts';
import { decryptText, encryptText, generateNonce, parseAesKey } from './encryption.ts';

const KEY = Buffer.from("s%zF`.*'5`9.AhI2!B,.~hmbs^.*TL?;");
// Plain and encrypted text from external-dns's endpoint/crypto_test.go.
const LOREM =
  "Lorem Ipsum is simply dummy text of the printing and typesetting industry. Lorem Ipsum has been the industry's standard dummy text ever since the 1500s, when an unknown printer took a galley of type and scrambled it to make a type specimen book. It has survived not only five centuries, but also the leap into electronic typesetting, remaining essentially unchanged. It was popularised in the 1960s with the release of Letraset sheets containing Lorem Ipsum passages, and more recently with desktop publishing software like Aldus PageMaker including versions of Lorem Ipsum.";
const LOREM_ENCRYPTED =
  '0Mfzf6wsN8llrfX0ucDZ6nlc2+QiQfKKedjPPLu5atb2I35L9nUZeJcCnuLVW7CVW3K0h94vSuBLdXnMrj8Vcm0M09shxaoF48IcCpD03XtQbKXqk2hPbsW6+JybvplHIQGr16/PcjUSObGmR9yjf38+qEltApkKvrPjsyw43BX4eE10rL0Bln33UJD7/w+zazRDPFlAcbGtkt0ETKHnvyB3/aCddLipvrhjCXj2ZY/ktRF6h716kJRgXU10dCIQHFYU45MIdxI+k10HK3yZqhI2V0Gp2xjrFV/LRQ7/OS9SFee4asPWUYxbCEsnOzp8qc0dCPFSo1dtADzWnUZnsAcbnjtudT4milfLJc5CxDk1v3ykqQ/ajejwHjWQ7b8U6AsTErbezfdcqrb5IzkLgHb5TosnfrdDmNc9GcKfpsrCHbVY8KgNwMVdtwavLv7d9WM6sooUlZ3t0sABGkzagXQmPRvwLnkSOlie5XrnzWo8/8/4UByLga29CaXO';

describe('parseAesKey', () => {
  test('takes 32 characters as raw key bytes', () => {
    assert.deepEqual(parseAesKey("s%zF`.*'5`9.AhI2!B,.~hmbs^.*TL?;"), KEY);
  });

  test('takes standard and URL-safe base64 of 32 bytes', () => {
    const bytes = Buffer.from(Array.from({ length: 32 }, (_, i) => (i * 37 + 251) % 256));
    assert.deepEqual(parseAesKey(bytes.toString('base64')), bytes);
    assert.deepEqual(parseAesKey(bytes.toString('base64url')), bytes);
  });

  test('rejects other lengths with a ConfigError naming the flag', () => {
    for (const bad of ['short', Buffer.alloc(16).toString('base64'), 'x'.repeat(33)]) {
      assert.throws(
        () => parseAesKey(bad),
        (err: unknown) => err instanceof ConfigError && err.flag === '--txt-encrypt-aes-key' && err.message.includes('--txt-encrypt-aes-key'),
      );
    }
  });
});

describe('encryptText / decryptText', () => {
  test("decrypts external-dns's known ciphertext", () => {
    assert.equal(decryptText(LOREM_ENCRYPTED, KEY).text, LOREM);
  });

  test('round-trips and reports the nonce used', () => {
    const nonce = generateNonce();
    const sealed = encryptText(LOREM, KEY, nonce);
    assert.deepEqual(decryptText(sealed, KEY), { text: LOREM, nonce });
  });

  test('is stable for a fixed nonce and varies without one', () => {
    const nonce = generateNonce();
    assert.equal(encryptText('heritage=external-dns', KEY, nonce), encryptText('heritage=external-dns', KEY, nonce));
    assert.notEqual(encryptText('heritage=external-dns', KEY), encryptText('heritage=external-dns', KEY));
  });

  test('writes base64(nonce || ciphertext || tag)', () => {
    const nonce = generateNonce();
    const raw = Buffer.from(encryptText('x', KEY, nonce), 'base64');
    assert.equal(raw.subarray(0, 12).toString('base64'), nonce);
    assert.ok(raw.length > 12 + 16);
  });

  test('fails with RegistryError for a wrong key, plain text or short input', () => {
    const other = Buffer.from("s'J!jD`].LC?g&Oa11AgTub,j48ts/96");
    assert.throws(() => decryptText(LOREM_ENCRYPTED, other), RegistryError);
    assert.throws(() => decryptText(LOREM, KEY), RegistryError);
    assert.throws(() => decryptText('AAAA', KEY), RegistryError);
  });

  test('refuses a nonce that is not 12 bytes', () => {
    assert.throws(() => encryptText('x', KEY, 'AAAA'), RegistryError);
  });
});
