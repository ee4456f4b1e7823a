import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError } from '../../errors.ts';
import { silentLogger } from '../../log.ts';
import { validateOptions } from './options.ts';

const base = { ownerId: 'default', managedRecordTypes: ['A' as const], excludeRecordTypes: [], logger: silentLogger() };
const refuses = (options: Parameters<typeof validateOptions>[0], flag: string, message: RegExp): void => {
  assert.throws(
    () => validateOptions(options),
    (e: unknown) => e instanceof ConfigError && e.flag === flag && message.test(e.message),
  );
};

test('the TXT registry checks its own flags, in this one place', () => {
  refuses({ ...base, prefix: 'p.', suffix: '-s' }, '--txt-prefix', /cannot be used together/);
  refuses({ ...base, encrypt: true }, '--txt-encrypt-aes-key', /needs --txt-encrypt-aes-key/);
  refuses({ ...base, aesKey: Buffer.alloc(16) }, '--txt-encrypt-aes-key', /32 bytes/);
  refuses({ ...base, ownerId: 'a,b' }, '--txt-owner-id', /commas/);
  validateOptions({ ...base, encrypt: true, aesKey: Buffer.alloc(32) });
});
