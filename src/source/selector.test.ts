import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError } from '../errors.ts';
import { parseSelector } from './selector.ts';

const FLAG = '--label-filter';

describe('parseSelector', () => {
  test('empty selector matches everything', () => {
    const s = parseSelector('', FLAG);
    assert.equal(s.isEmpty(), true);
    assert.equal(s.matches({}), true);
    assert.equal(s.matches(undefined), true);
    assert.equal(parseSelector('   ', FLAG).isEmpty(), true);
  });

  test('equality forms', () => {
    for (const text of ['app=web', 'app==web', ' app = web ']) {
      const s = parseSelector(text, FLAG);
      assert.equal(s.matches({ app: 'web' }), true, text);
      assert.equal(s.matches({ app: 'db' }), false, text);
      assert.equal(s.matches({}), false, text);
    }
  });

  test('inequality matches a missing key', () => {
    const s = parseSelector('app!=web', FLAG);
    assert.equal(s.matches({ app: 'web' }), false);
    assert.equal(s.matches({ app: 'db' }), true);
    assert.equal(s.matches({}), true);
  });

  test('set operators', () => {
    const inSel = parseSelector('tier in (front, back)', FLAG);
    assert.equal(inSel.matches({ tier: 'front' }), true);
    assert.equal(inSel.matches({ tier: 'back' }), true);
    assert.equal(inSel.matches({ tier: 'db' }), false);
    assert.equal(inSel.matches({}), false);
    const notin = parseSelector('tier notin (db)', FLAG);
    assert.equal(notin.matches({ tier: 'db' }), false);
    assert.equal(notin.matches({ tier: 'web' }), true);
    assert.equal(notin.matches({}), true);
  });

  test('existence and absence', () => {
    const s = parseSelector('public,!internal', FLAG);
    assert.equal(s.matches({ public: '' }), true);
    assert.equal(s.matches({ public: 'yes', internal: 'x' }), false);
    assert.equal(s.matches({}), false);
  });

  test('comma is AND across requirement kinds, prefixed keys allowed', () => {
    const s = parseSelector('kubernetes.io/ingress.class=nginx,env in (prod,stage),!skip', '--annotation-filter');
    assert.equal(s.matches({ 'kubernetes.io/ingress.class': 'nginx', env: 'prod' }), true);
    assert.equal(s.matches({ 'kubernetes.io/ingress.class': 'nginx', env: 'dev' }), false);
    assert.equal(s.matches({ 'kubernetes.io/ingress.class': 'nginx', env: 'prod', skip: '1' }), false);
    assert.equal(s.requirements.length, 3);
  });

  test('numeric comparisons', () => {
    const s = parseSelector('weight>5', FLAG);
    assert.equal(s.matches({ weight: '6' }), true);
    assert.equal(s.matches({ weight: '5' }), false);
    assert.equal(s.matches({ weight: 'x' }), false);
    assert.equal(parseSelector('weight<5', FLAG).matches({ weight: '4' }), true);
  });

  test('toString round-trips', () => {
    const text = 'a=b,c!=d,e in (f,g),h notin (i),j,!k';
    assert.equal(parseSelector(text, FLAG).toString(), text);
    assert.equal(parseSelector(parseSelector(text, FLAG).toString(), FLAG).toString(), text);
  });

  test('parse errors are ConfigErrors naming the flag', () => {
    for (const bad of ['a in (x', 'a in ()', 'a in x', '=b', 'a=b,', 'a b', 'a=b=c', '!', 'a>x', 'bad key=1', 'a=in valid', '-a=b']) {
      assert.throws(
        () => parseSelector(bad, '--annotation-filter'),
        (err: unknown) => err instanceof ConfigError && err.flag === '--annotation-filter' && err.message.includes('--annotation-filter'),
        bad,
      );
    }
  });
});
