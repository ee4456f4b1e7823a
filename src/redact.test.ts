import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { redactUrl, redactUrls } from './redact.ts';

describe('redactUrl', () => {
  test('user info is replaced, the rest kept', () => {
    assert.equal(redactUrl('http://user:pa%40ss@127.0.0.1:8888/api?x=1'), 'http://REDACTED@127.0.0.1:8888/api?x=1');
    assert.equal(redactUrl('https://token@etcd.internal:2379'), 'https://REDACTED@etcd.internal:2379/');
    assert.equal(redactUrl(new URL('http://u:p@h/')), 'http://REDACTED@h/');
  });

  test('secret-looking query parameters are replaced', () => {
    assert.equal(redactUrl('https://h/p?api_key=abc&zone=x&password=p&sig=s'), 'https://h/p?api_key=REDACTED&zone=x&password=REDACTED&sig=REDACTED');
    assert.equal(redactUrl('https://h/p?access_token=t'), 'https://h/p?access_token=REDACTED');
  });

  test('a URL without secrets comes back exactly as given', () => {
    assert.equal(redactUrl('http://localhost:8888'), 'http://localhost:8888');
    assert.equal(redactUrl('https://[::1]:2379'), 'https://[::1]:2379');
  });

  test('text that does not parse as a URL still loses its user info and secret parameters', () => {
    assert.equal(redactUrl('http://u:p@[bad/?password=x'), 'http://REDACTED@[bad/?password=REDACTED');
    assert.equal(redactUrl('etcd://user:secret@'), 'etcd://REDACTED@');
    assert.equal(redactUrl('not a url'), 'not a url');
  });
});

describe('redactUrls', () => {
  test('every URL inside a message is redacted', () => {
    const message = 'Request cannot be constructed from a URL that includes credentials: http://a:b@localhost:8888/records (also https://t@h/?token=x)';
    assert.equal(
      redactUrls(message),
      'Request cannot be constructed from a URL that includes credentials: http://REDACTED@localhost:8888/records (also https://REDACTED@h/?token=REDACTED)',
    );
  });
});
