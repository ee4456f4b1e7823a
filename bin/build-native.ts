/**
 * `npm run build:native` (also run by `npm ci`/`npm install`): compiles the DNS server's native UDP
 * path (src/dns/server/native/udp.c) to build/native/hostwarden_udp.node with the system C compiler and
 * Node's own headers, offline. Without a compiler, headers or Linux it prints one line and exits 0:
 * the server then uses node:dgram. HOSTWARDEN_NATIVE_REQUIRED=1 makes that a failure (CI, images).
 * `--out FILE` writes elsewhere: the runtime matrix compiles once per Node.js release with that
 * release's headers (test/runtime/smoke.test.ts) without replacing the shared build.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));
const source = join(root, 'src/dns/server/native/udp.c');
const outAt = process.argv.indexOf('--out');
const target = outAt >= 0 && process.argv[outAt + 1] !== undefined ? resolve(process.argv[outAt + 1]!) : join(root, 'build/native/hostwarden_udp.node');
const required = process.env.HOSTWARDEN_NATIVE_REQUIRED === '1';

function skip(reason: string): never {
  process.stdout.write(`native UDP path not built (${reason}); the DNS server will use node:dgram\n`);
  process.exit(required ? 1 : 0);
}

/** Node's headers: beside the running binary (official tarballs, Debian, the Docker images), else npm's nodedir. */
function includeDir(): string | undefined {
  const usable = (d: string): boolean => existsSync(join(d, 'node_api.h')) && existsSync(join(d, 'uv.h'));
  const beside = join(dirname(process.execPath), '../include/node');
  if (usable(beside)) return beside;
  const npm = spawnSync('npm', ['config', 'get', 'nodedir'], { encoding: 'utf8' });
  const nodedir = npm.status === 0 ? npm.stdout.trim() : '';
  const fromNpm = join(nodedir, 'include/node');
  return nodedir !== '' && nodedir !== 'undefined' && usable(fromNpm) ? fromNpm : undefined;
}

if (process.platform !== 'linux') skip(`recvmmsg/sendmmsg need Linux, this is ${process.platform}`);
const cc = process.env.CC ?? 'cc';
if (spawnSync(cc, ['--version'], { stdio: 'ignore' }).status !== 0) skip(`no C compiler "${cc}"`);
const include = includeDir();
if (include === undefined) skip('no Node headers (node_api.h, uv.h) next to node or in npm nodedir');
mkdirSync(dirname(target), { recursive: true });
// Compiled beside the target and renamed over it, so a running server keeps its mapped copy intact.
const temp = `${target}.${process.pid}.tmp`;
const args = ['-O2', '-Wall', '-Wextra', '-shared', '-fPIC', `-I${include}`, source, '-o', temp];
const result = spawnSync(cc, args, { stdio: 'inherit' });
if (result.status !== 0) {
  rmSync(temp, { force: true });
  skip(`${cc} failed`);
}
renameSync(temp, target);
process.stdout.write(`built ${relative(root, target)}\n`);
