import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CREDENTIAL_PROCESS_FORBIDDEN, SecretCredentialsError, awsConfigFromSecret, parseAwsConfig, profileFromSecret } from './secret-profile.ts';

const refused = (data: Record<string, string>, message: RegExp | string): void => {
  assert.throws(
    () => profileFromSecret(data),
    (err: unknown) => err instanceof SecretCredentialsError && (typeof message === 'string' ? err.message === message : message.test(err.message)),
  );
};

describe('credentials Secret as Hive reads it', () => {
  it('turns every data key into a [default] line', () => {
    assert.equal(
      awsConfigFromSecret({ aws_access_key_id: 'AK', aws_secret_access_key: 'SK' }),
      '[default]\naws_access_key_id = AK\naws_secret_access_key = SK\n',
    );
    assert.deepEqual(profileFromSecret({ aws_access_key_id: 'AK', aws_secret_access_key: 'SK\n', aws_session_token: 'TOK' }), {
      keys: { accessKeyId: 'AK', secretAccessKey: 'SK', sessionToken: 'TOK' },
      roles: [],
    });
  });

  it('uses aws_config (and config) as a whole AWS config file, profile default, ignoring other keys and region', () => {
    const file = '# hub\n[default]\nregion = eu-west-1\naws_access_key_id = AK2\naws_secret_access_key = SK2\n';
    for (const key of ['aws_config', 'config']) {
      assert.deepEqual(profileFromSecret({ [key]: file, aws_access_key_id: 'ignored', aws_secret_access_key: 'ignored' }), {
        keys: { accessKeyId: 'AK2', secretAccessKey: 'SK2' },
        roles: [],
      });
    }
    // aws_config wins over config, as Hive only knows aws_config.
    assert.equal(profileFromSecret({ aws_config: file, config: '[default]\n' }).keys.accessKeyId, 'AK2');
  });

  it('follows role_arn / source_profile with external_id and role_session_name, innermost first', () => {
    const file = [
      '[default]',
      'role_arn = arn:aws:iam::111111111111:role/outer',
      'source_profile = middle',
      'external_id = ext-1',
      '[profile middle]',
      'role_arn = arn:aws:iam::222222222222:role/inner',
      'role_session_name = sess',
      'source_profile = base',
      '[profile base]',
      'aws_access_key_id = AK',
      'aws_secret_access_key = SK',
    ].join('\n');
    assert.deepEqual(profileFromSecret({ aws_config: file }), {
      keys: { accessKeyId: 'AK', secretAccessKey: 'SK' },
      roles: [
        { roleArn: 'arn:aws:iam::222222222222:role/inner', sessionName: 'sess' },
        { roleArn: 'arn:aws:iam::111111111111:role/outer', externalId: 'ext-1' },
      ],
    });
    // Flat keys can say it too, with a profile named by source_profile only in a file: itself.
    assert.deepEqual(
      profileFromSecret({ aws_access_key_id: 'AK', aws_secret_access_key: 'SK', role_arn: 'arn:aws:iam::111111111111:role/r', source_profile: 'default' })
        .roles,
      [{ roleArn: 'arn:aws:iam::111111111111:role/r' }],
    );
  });

  it('refuses credential_process as a data key (any case) and inside the file, with Hive wording', () => {
    refused({ CREDENTIAL_PROCESS: '/bin/true' }, CREDENTIAL_PROCESS_FORBIDDEN);
    refused(
      { aws_config: '[profile x]\ncredential_process = /bin/sh -c id\n[default]\naws_access_key_id=a\naws_secret_access_key=b\n' },
      CREDENTIAL_PROCESS_FORBIDDEN,
    );
    refused({ config: '[default]\nCredential_Process=x\n' }, CREDENTIAL_PROCESS_FORBIDDEN);
  });

  it('refuses what would reach outside the Secret, loops, and profiles without keys, naming no value', () => {
    refused({ role_arn: 'arn:aws:iam::111111111111:role/r', credential_source: 'Ec2InstanceMetadata' }, /credential_source is not supported/);
    refused({ web_identity_token_file: '/var/run/token', role_arn: 'arn:aws:iam::111111111111:role/r' }, /web_identity_token_file/);
    refused({ role_arn: 'arn:aws:iam::111111111111:role/r' }, /role_arn needs source_profile/);
    refused(
      { aws_config: '[default]\nrole_arn=arn:aws:iam::1:role/a\nsource_profile=b\n[profile b]\nrole_arn=arn:aws:iam::1:role/b\nsource_profile=default\n' },
      /loop/,
    );
    refused({ aws_config: '[default]\nrole_arn=r\nsource_profile=gone\n' }, /no profile "gone"/);
    refused({ aws_access_key_id: 'AKSECRETVALUE' }, /has no aws_access_key_id and aws_secret_access_key/);
    refused({}, /profile "default" has no/);
    try {
      profileFromSecret({ aws_access_key_id: 'AKSECRETVALUE' });
    } catch (err) {
      assert.doesNotMatch((err as Error).message, /AKSECRETVALUE/);
    }
  });

  it('parses [profile x], [x], comments and skips indented sub-sections', () => {
    const p = parseAwsConfig('[profile a]\nKey = 1\n  s3 =\n    max = 2\n; c\n[b]\nk=v=w\n');
    assert.deepEqual(Object.fromEntries(p), { a: { key: '1' }, b: { k: 'v=w' } });
  });
});
