/**
 * `npm run build`: compiles src/ to dist/ (tsconfig.build.json), which bin/hostwarden then runs
 * with plain node instead of tsx — about 90 MB less RSS, most of it tsx's copies of client-node's
 * sources. Optional: without dist/, or when any file under src/ is newer than the build,
 * bin/hostwarden runs the sources through tsx as before.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('../', import.meta.url));
const dist = fileURLToPath(new URL('../dist/', import.meta.url));
// Taken before compiling, so a source edited during the build makes the result stale.
const startedAt = Date.now();
rmSync(dist, { recursive: true, force: true });
const tsc = spawnSync(process.execPath, [fileURLToPath(new URL('../node_modules/typescript/bin/tsc', import.meta.url)), '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
if (tsc.status !== 0) {
  // Never leave a half-checked build behind for bin/hostwarden to prefer.
  rmSync(dist, { recursive: true, force: true });
  process.stderr.write('build failed; bin/hostwarden keeps running the sources through tsx\n');
  process.exit(1);
}
// The DNS worker processes are forked with tsx from the path the source names (worker-main.ts). The
// shim imports a copy of the compiled worker under another name: tsx would map './worker-main.js'
// back to the shim itself.
copyFileSync(`${dist}dns/worker-main.js`, `${dist}dns/worker-main-compiled.js`);
writeFileSync(`${dist}dns/worker-main.ts`, "import './worker-main-compiled.js';\n");
// client-node's package root loads its whole generated API (2,500 modules, about 60 MB of RSS);
// a bundle of KubeConfig holds only what KubeConfig reaches. Its CommonJS dependencies call
// require(), which an ES module lacks, hence the banner.
await build({
  entryPoints: [fileURLToPath(new URL('../src/kube/kubeconfig-module.ts', import.meta.url))],
  outfile: `${dist}kube/kubeconfig-module.js`,
  allowOverwrite: true,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  logLevel: 'error',
  banner: { js: "import { createRequire as hostwardenCreateRequire } from 'node:module'; const require = hostwardenCreateRequire(import.meta.url);" },
});
writeFileSync(`${dist}.build.json`, `${JSON.stringify({ startedAt })}\n`);
process.stdout.write(`built dist/ in ${Math.round((Date.now() - startedAt) / 1000)} s\n`);
