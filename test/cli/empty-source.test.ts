/**
 * --source=empty end to end, as external-dns users run it: nothing is desired, so with the TXT
 * registry and --policy=sync the records this owner holds go, and another owner's stay.
 */
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { runCli } from '../support/cli.ts';
import { loadBalancerService } from '../support/manifests.ts';

let root: string | undefined;
after(async () => {
  if (root !== undefined) await rm(root, { recursive: true, force: true });
});

const once = (data: string, owner: string, ...args: string[]) =>
  runCli([
    'run',
    '--once',
    '--embedded-data-dir',
    data,
    '--embedded-zone',
    'example.org',
    '--txt-owner-id',
    owner,
    '--metrics-address',
    '',
    '--log-level',
    'error',
    ...args,
  ]);

test("--source=empty removes only this owner's records under --policy=sync, and nothing under upsert-only", async () => {
  root = await mkdtemp(join(tmpdir(), 'hw-empty-'));
  const data = join(root, 'data');
  for (const [owner, name, ip] of [
    ['mine', 'www', '192.0.2.10'],
    ['theirs', 'api', '192.0.2.20'],
  ] as const) {
    const dir = join(root, owner);
    await mkdir(dir);
    await writeFile(join(dir, 'svc.yaml'), loadBalancerService(name, `${name}.example.org`, ip));
    const r = await once(data, owner, '--manifests-dir', dir);
    assert.equal(r.code, 0, r.stderr);
  }
  const zone = () => readFile(join(data, 'example.org.zone'), 'utf8');
  assert.match(await zone(), /www\.example\.org\.\s+\d+\s+IN\s+A\s+192\.0\.2\.10/);

  const kept = await once(data, 'mine', '--source=empty', '--policy=upsert-only');
  assert.equal(kept.code, 0, kept.stderr);
  assert.match(await zone(), /www\.example\.org\.\s+\d+\s+IN\s+A\s+192\.0\.2\.10/, 'upsert-only deletes nothing');

  const r = await once(data, 'mine', '--source=empty', '--policy=sync');
  assert.equal(r.code, 0, r.stderr);
  const after = await zone();
  assert.doesNotMatch(after, /192\.0\.2\.10/, 'our record is gone');
  assert.doesNotMatch(after, /a-www\.example\.org/, 'with its ownership record');
  assert.match(after, /api\.example\.org\.\s+\d+\s+IN\s+A\s+192\.0\.2\.20/, "another owner's record stays");
});
