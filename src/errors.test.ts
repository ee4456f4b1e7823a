import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ERROR_CODES, HostwardenError, ProviderError, isErrorCode } from './errors.ts';

test('every code is listed once, upper snake case, with what it means; the transient default comes from the registry', () => {
  for (const [code, entry] of Object.entries(ERROR_CODES)) {
    assert.match(code, /^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$/);
    assert.ok(entry.meaning.length > 10, code);
  }
  assert.equal(isErrorCode('PROVIDER_INVALID_CHANGES'), false, 'one spelling per code');
  assert.equal(new HostwardenError('KUBE_UNREACHABLE', 'x').transient, true);
  assert.equal(new HostwardenError('KUBE_UNREACHABLE', 'x', { transient: false }).transient, false);
  assert.equal(new ProviderError('p', 'x').code, 'PROVIDER_FAILED');
});
