import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { ConfigError } from '../errors.ts';
import { TSIG_BADKEY, TSIG_BADSIG, TSIG_BADTIME, findTsig, parseTsigKey, sign, verify } from './tsig.ts';
import type { TsigKey } from './tsig.ts';

const KEY: TsigKey = { name: 'test-key', algorithm: 'hmac-sha256', secret: Buffer.from('0123456789abcdef0123456789abcdef') };

/** A query for example.test SOA with ID 0x1234. */
function message(): Buffer {
  return Buffer.from('123400000001000000000000076578616d706c65047465737400000600 01'.replace(/ /g, ''), 'hex');
}

function wireName(name: string): Buffer {
  return Buffer.concat([...name.split('.').flatMap((l) => [Buffer.from([l.length]), Buffer.from(l)]), Buffer.from([0])]);
}

describe('TSIG', () => {
  test('the MAC covers message and TSIG variables exactly as RFC 8945 4.3.3 lays them out', () => {
    const time = 1_700_000_000;
    const { message: signed, mac } = sign(message(), KEY, time);
    // Independent computation of the digest input.
    const vars = Buffer.concat([
      wireName('test-key'),
      Buffer.from([0, 255, 0, 0, 0, 0]),
      wireName('hmac-sha256'),
      Buffer.from([0, 0]),
      Buffer.from([time >>> 24, (time >>> 16) & 255, (time >>> 8) & 255, time & 255]),
      Buffer.from([1, 44]),
      Buffer.from([0, 0, 0, 0]),
    ]);
    const expected = createHmac('sha256', KEY.secret).update(message()).update(vars).digest();
    assert.deepEqual(mac, expected);
    assert.equal(signed.readUInt16BE(10), 1, 'ARCOUNT counts the TSIG record');
    const rec = findTsig(signed);
    assert.equal(rec?.keyName, 'test-key');
    assert.equal(rec?.algorithmName, 'hmac-sha256');
    assert.equal(rec?.time, time);
    assert.equal(rec?.fudge, 300);
    assert.equal(rec?.originalId, 0x1234);
    assert.deepEqual(rec?.mac, mac);
  });

  test('sign then verify for every algorithm; tampering, wrong key and old time are detected', () => {
    for (const algorithm of ['hmac-md5', 'hmac-sha1', 'hmac-sha224', 'hmac-sha256', 'hmac-sha384', 'hmac-sha512'] as const) {
      const key = { ...KEY, algorithm };
      const keys = (n: string): TsigKey | undefined => (n === key.name ? key : undefined);
      const { message: signed } = sign(message(), key, 1000);
      assert.equal(verify(signed, keys, { now: 1000 }).status, 'ok', algorithm);
      const tampered = Buffer.from(signed);
      tampered[13] = 0x46;
      const bad = verify(tampered, keys, { now: 1000 });
      assert.ok(bad.status === 'error' && bad.error === TSIG_BADSIG, algorithm);
      const old = verify(signed, keys, { now: 1000 + 301 });
      assert.ok(old.status === 'error' && old.error === TSIG_BADTIME, algorithm);
      const other = verify(signed, () => undefined, { now: 1000 });
      assert.ok(other.status === 'error' && other.error === TSIG_BADKEY, algorithm);
    }
  });

  test('a changed message ID is allowed (the original ID is signed), unsigned messages say so', () => {
    const { message: signed } = sign(message(), KEY, 50);
    signed.writeUInt16BE(0x9999, 0);
    assert.equal(verify(signed, () => KEY, { now: 50 }).status, 'ok');
    assert.equal(verify(message(), () => KEY, { now: 50 }).status, 'unsigned');
  });

  test('responses chain the request MAC; later messages of a stream sign timers only', () => {
    const req = sign(message(), KEY, 10);
    const resp1 = sign(message(), KEY, 11, req.mac);
    assert.equal(verify(resp1.message, () => KEY, { now: 11, requestMac: req.mac }).status, 'ok');
    assert.equal(verify(resp1.message, () => KEY, { now: 11 }).status, 'error');
    const resp2 = sign(message(), KEY, 12, resp1.mac, { timersOnly: true });
    assert.equal(verify(resp2.message, () => KEY, { now: 12, requestMac: resp1.mac, timersOnly: true }).status, 'ok');
  });

  test('BADKEY and BADSIG errors go out with an empty MAC', () => {
    const { message: m } = sign(message(), KEY, 10, undefined, { error: TSIG_BADKEY });
    const rec = findTsig(m);
    assert.equal(rec?.mac.length, 0);
    assert.equal(rec?.error, TSIG_BADKEY);
  });

  test('key specs in dig -y form', () => {
    const k = parseTsigKey(`hmac-sha512:Xfr.Key.:${Buffer.from('s3cret').toString('base64')}`);
    assert.equal(k.name, 'xfr.key');
    assert.equal(k.algorithm, 'hmac-sha512');
    assert.equal(k.secret.toString(), 's3cret');
    assert.equal(parseTsigKey('name:c2VjcmV0').algorithm, 'hmac-sha256');
    assert.throws(() => parseTsigKey('hmac-foo:name:c2VjcmV0'), ConfigError);
    assert.throws(() => parseTsigKey('just-a-name'), ConfigError);
    assert.throws(() => parseTsigKey('name:not base64!'), ConfigError);
  });

  test('errors name the flag and the expected form, and never echo the secret', () => {
    const secret = Buffer.from('very-secret-key!').toString('base64');
    const failure = (spec: string): ConfigError => {
      try {
        parseTsigKey(spec);
      } catch (err) {
        assert.ok(err instanceof ConfigError, String(err));
        return err;
      }
      throw new Error(`${spec} was accepted`);
    };
    for (const spec of [
      `xfr-key:hmac-sha256:${secret}`,
      `hmac-foo:xfr-key:${secret}`,
      secret,
      `a:b:c:${secret}`,
      `xfr-key:${secret}!`,
      `hmac-sha256::${secret}`,
    ]) {
      const err = failure(spec);
      assert.equal(err.flag, '--dns-tsig-key');
      assert.match(err.message, /^--dns-tsig-key: /, spec);
      assert.match(err.message, /\[algorithm:\]name:base64secret/, spec);
      assert.ok(!err.message.includes(secret) && !err.message.includes(`${secret}!`), `${spec}: ${err.message}`);
    }
    // The order --help once documented gets a message that says how to fix it.
    assert.match(failure(`xfr-key:hmac-sha256:${secret}`).message, /the algorithm comes first.*write hmac-sha256:xfr-key:<secret>/);
    assert.match(failure(`hmac-foo:xfr-key:${secret}`).message, /unknown TSIG algorithm "hmac-foo"/);
    assert.equal(parseTsigKey('k:c2VjcmV0', '--other').name, 'k');
    assert.match(failure('only').message, /got 1 ":"-separated field$/);
  });
});
