/**
 * Static checks of the Dockerfile (no Docker engine here to build it): multi-stage from the slim
 * image of the newest supported Node.js LTS, production dependencies only in the runtime stage, a numeric non-root user, the
 * entrypoint, no secrets; and that everything the runtime imports is a production dependency, so
 * the `npm ci --omit=dev` image can start.
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { supportedLines } from '../../src/cli/runtime.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');

interface Instruction {
  op: string;
  args: string;
}

interface Stage {
  base: string;
  name: string;
  body: Instruction[];
}

function instructions(text: string): Instruction[] {
  const joined = text.replace(/\\\r?\n/g, ' ');
  return joined
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'))
    .map((l) => {
      const m = /^(\w+)\s+(.*)$/.exec(l);
      return { op: (m?.[1] ?? l).toUpperCase(), args: (m?.[2] ?? '').trim() };
    });
}

function parseDockerfile(text: string): { args: Map<string, string>; stages: Stage[] } {
  const args = new Map<string, string>();
  const stages: Stage[] = [];
  for (const ins of instructions(text)) {
    if (ins.op === 'ARG' && stages.length === 0) {
      const [name = '', value = ''] = ins.args.split('=');
      args.set(name, value);
    } else if (ins.op === 'FROM') {
      const m = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(ins.args);
      const base = (m?.[1] ?? '').replace(/\$\{(\w+)\}|\$(\w+)/g, (_s, a: string | undefined, b: string | undefined) => args.get(a ?? b ?? '') ?? '');
      stages.push({ base, name: m?.[2] ?? String(stages.length), body: [] });
    } else {
      const stage = stages[stages.length - 1];
      if (stage === undefined) assert.fail(`${ins.op} before the first FROM`);
      stage.body.push(ins);
    }
  }
  return { args, stages };
}

function load(): { args: Map<string, string>; stages: Stage[]; text: string } {
  const text = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
  return { ...parseDockerfile(text), text };
}

function runtime(stages: Stage[]): Stage {
  const last = stages[stages.length - 1];
  assert.ok(last !== undefined, 'no stage');
  return last;
}

/** `COPY --from=x src dst` → { from, sources, dest }. */
function copies(stage: Stage): { from: string | undefined; sources: string[]; dest: string }[] {
  return stage.body
    .filter((i) => i.op === 'COPY')
    .map((i) => {
      const words = i.args.split(/\s+/);
      const from = words.find((w) => w.startsWith('--from='))?.slice('--from='.length);
      const paths = words.filter((w) => !w.startsWith('--'));
      return { from, sources: paths.slice(0, -1), dest: paths[paths.length - 1] ?? '' };
    });
}

/** Packages imported at run time by bin/ and the non-test sources (type-only imports are erased). */
function runtimeImports(): Map<string, string> {
  const found = new Map<string, string>();
  const files = [
    join(ROOT, 'bin/hostwarden'),
    ...(readdirSync(join(ROOT, 'src'), { recursive: true }) as string[])
      .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
      .map((f) => join(ROOT, 'src', f)),
  ];
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    const specs = [
      ...[...text.matchAll(/^\s*(?:import|export)\s+(?!type\s)(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]/gm)].map((m) => m[1]),
      ...[...text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)].map((m) => m[1]),
      // Child processes started with a loader: ['--import', 'tsx'].
      ...[...text.matchAll(/'--import',\s*'([^']+)'/g)].map((m) => m[1]),
    ];
    for (const spec of specs) {
      if (spec === undefined || spec.startsWith('.') || spec.startsWith('node:') || spec.startsWith('/')) continue;
      const pkg = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : (spec.split('/')[0] ?? spec);
      if (!found.has(pkg)) found.set(pkg, file.slice(ROOT.length + 1));
    }
  }
  return found;
}

describe('Dockerfile', () => {
  test('is multi-stage, every stage from the slim Debian 13 image of the newest supported Node.js LTS', () => {
    const { stages } = load();
    assert.ok(stages.length >= 2, 'a single stage');
    const newest = Math.max(...supportedLines(new Date()));
    for (const s of stages) assert.equal(s.base, `node:${newest}-trixie-slim`, `stage ${s.name}`);
    assert.equal(new Set(stages.map((s) => s.name)).size, stages.length, 'stage names repeat');
  });

  test('the runtime stage gets node_modules from an `npm ci --omit=dev` stage and dist/ from the type-checked build', () => {
    const { stages } = load();
    const rt = runtime(stages);
    const prod = stages.find((s) => s.body.some((i) => i.op === 'RUN' && /\bnpm ci\b[^&]*--omit=dev/.test(i.args)));
    assert.ok(prod !== undefined, 'no stage runs npm ci --omit=dev');
    const modules = copies(rt).find((c) => c.sources.some((p) => p.endsWith('node_modules')));
    assert.equal(modules?.from, prod.name, 'node_modules must come from the production install');
    const build = stages.find((s) => s.body.some((i) => i.op === 'RUN' && /\btsc\b/.test(i.args)));
    assert.ok(build !== undefined, 'no stage type-checks');
    const copied = copies(rt).flatMap((c) => c.sources.map((p) => `${c.from ?? 'context'}:${p.replace(/^\/app\//, '').replace(/\/$/, '')}`));
    assert.ok(
      build.body.some((i) => i.op === 'RUN' && /\bnpm run build\b/.test(i.args)),
      'the build stage does not compile dist/',
    );
    for (const need of ['bin', 'dist', 'package.json'])
      assert.ok(copied.includes(`${build.name}:${need}`), `runtime lacks ${need} from ${build.name}: ${copied.join(' ')}`);
    assert.ok(!copied.some((c) => c.endsWith(':src')), 'the runtime runs dist/, the sources stay in the build stage');
    assert.ok(!rt.body.some((i) => i.op === 'RUN' && /\bnpm (ci|install)\b/.test(i.args)), 'the runtime stage installs packages');
  });

  test('the build stage compiles the native UDP addon (required, not best effort); the runtime gets the file, not the compiler', () => {
    const { stages } = load();
    const rt = runtime(stages);
    const build = stages.find((s) => s.body.some((i) => i.op === 'RUN' && /HOSTWARDEN_NATIVE_REQUIRED=1 npm run build:native\b/.test(i.args)));
    assert.ok(build !== undefined, 'no stage runs HOSTWARDEN_NATIVE_REQUIRED=1 npm run build:native');
    assert.ok(
      build.body.some((i) => i.op === 'RUN' && /apt-get install[^&]*\bgcc\b[^&]*\blibc6-dev\b/.test(i.args)),
      'the build stage installs gcc and libc6-dev',
    );
    const compiled = build.body.findIndex((i) => /build:native/.test(i.args));
    const srcCopied = build.body.findIndex((i) => i.op === 'COPY' && /\bsrc\b/.test(i.args));
    assert.ok(srcCopied >= 0 && srcCopied < compiled, 'src/ (udp.c) is copied before the addon is built');
    const copied = copies(rt).map((c) => `${c.from ?? 'context'}:${c.sources.join(' ')}->${c.dest}`);
    assert.ok(copied.includes(`${build.name}:/app/build->./build`), `runtime lacks build/ from ${build.name}: ${copied.join(' ')}`);
    assert.ok(!rt.body.some((i) => i.op === 'RUN' && /\b(gcc|cc|apt-get)\b/.test(i.args)), 'no compiler in the runtime stage');
  });

  test('runs as a numeric non-root user with node bin/hostwarden as the entrypoint', () => {
    const rt = runtime(load().stages);
    const users = rt.body.filter((i) => i.op === 'USER');
    const user = users[users.length - 1]?.args ?? '';
    assert.match(user, /^\d+(:\d+)?$/, 'USER must be numeric so runAsNonRoot can be verified');
    assert.notEqual(Number(user.split(':')[0]), 0);
    const entry = rt.body.filter((i) => i.op === 'ENTRYPOINT').pop();
    assert.deepEqual(JSON.parse(entry?.args ?? 'null'), ['node', '--max-semi-space-size=2', 'bin/hostwarden']);
    const userIndex = rt.body.lastIndexOf(users[users.length - 1] as Instruction);
    assert.ok(!rt.body.slice(userIndex).some((i) => i.op === 'RUN'), 'no RUN after USER (it would need root)');
  });

  test('exposes the ports the manifests use', () => {
    const rt = runtime(load().stages);
    const exposed = rt.body.filter((i) => i.op === 'EXPOSE').flatMap((i) => i.args.split(/\s+/));
    for (const p of ['5353/udp', '5353/tcp', '7979/tcp']) assert.ok(exposed.includes(p), `EXPOSE ${p}`);
  });

  test("carries no secrets and downloads nothing outside npm ci (and the build stage's Debian compiler)", () => {
    const { text, stages, args } = load();
    for (const name of args.keys()) assert.doesNotMatch(name, /secret|token|password|passwd|key|credential/i);
    for (const s of stages) {
      for (const i of s.body) {
        if (i.op === 'ENV' || i.op === 'ARG') assert.doesNotMatch(i.args, /secret|token|password|passwd|_key|credential/i, `${i.op} ${i.args}`);
        if (i.op === 'ADD') assert.fail(`ADD ${i.args}: use COPY`);
        if (i.op === 'RUN') assert.doesNotMatch(i.args, /\b(curl|wget)\b/);
        if (i.op === 'COPY') assert.doesNotMatch(i.args, /\.npmrc|\.env\b|id_rsa|\.pem\b/);
      }
    }
    assert.doesNotMatch(text, /--mount=type=secret/, 'secrets are not needed to build');
  });

  test('.dockerignore sends only what the stages copy, without tests', () => {
    const lines = readFileSync(join(ROOT, '.dockerignore'), 'utf8')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '' && !l.startsWith('#'));
    assert.equal(lines[0], '*', 'ignore everything by default');
    const allowed = lines.filter((l) => l.startsWith('!')).map((l) => l.slice(1).replace(/\/$/, ''));
    const fromContext = load().stages.flatMap((s) =>
      copies(s)
        .filter((c) => c.from === undefined)
        .flatMap((c) => c.sources.map((p) => p.replace(/^\.\//, '').replace(/\/$/, ''))),
    );
    for (const p of fromContext) assert.ok(allowed.includes(p), `COPY ${p} is not let through .dockerignore`);
    assert.ok(lines.includes('src/**/*.test.ts'), 'tests stay out of the image');
  });

  test('everything the runtime imports is a production dependency (the --omit=dev image can start)', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
    const deps = new Set(Object.keys(pkg.dependencies ?? {}));
    const missing = [...runtimeImports()].filter(([name]) => !deps.has(name)).map(([name, file]) => `${name} (imported by ${file})`);
    assert.deepEqual(missing, []);
    assert.ok(runtimeImports().has('tsx'), 'bin/hostwarden loads tsx');
  });
});
