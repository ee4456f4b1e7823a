/**
 * Replays arn.json (AWS's ARN rules as upstream's webhook applies them) through Hostwarden's
 * validation: the webhook and the reconciler share validateExternalDNS, so an admitted ARN is
 * neither refused nor turned into UnsupportedSpec for a stored object.
 */
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { isArn, validateExternalDNS, validationWarnings } from '../../../../src/operator/validate.ts';
import type { ExternalDNS } from '../../../../src/operator/types.ts';

interface ArnCase {
  arn: string;
  admitted: boolean;
  warns?: boolean;
  note?: string;
}
const table = JSON.parse(readFileSync(new URL('./arn.json', import.meta.url), 'utf8')) as { cases: ArnCase[]; refusal: string };

const withArn = (arn: string): ExternalDNS => ({
  metadata: { name: 'arn' },
  spec: {
    provider: { type: 'AWS', aws: { credentials: { name: 'aws' }, assumeRole: { arn } } },
    source: { type: 'Service', fqdnTemplate: ['{{.Name}}.example.org'] },
  },
});

describe('assumeRole.arn: AWS ARN rules (upstream validateAWSRoleARN)', () => {
  for (const c of table.cases) {
    test(`${JSON.stringify(c.arn)} ${c.admitted ? 'admitted' : 'refused'}${c.note === undefined ? '' : ` (${c.note})`}`, () => {
      assert.equal(isArn(c.arn), c.admitted);
      const errors = validateExternalDNS(withArn(c.arn), { openshift: false }).map((e) => e.message);
      if (c.admitted) {
        assert.deepEqual(errors, []);
        assert.equal(validationWarnings(withArn(c.arn)).length > 0, c.warns ?? false);
      } else {
        const why = table.refusal.replace('%q', JSON.stringify(c.arn));
        assert.deepEqual(errors, [`spec.provider.aws.assumeRole.arn: Invalid value: ${JSON.stringify(c.arn)}: ${why}`]);
      }
    });
  }
});
