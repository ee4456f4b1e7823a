/**
 * external_dns_build_info: a constant 1 labelled with what was built and what runs it. The label
 * names are external-dns's; `go_version` carries the Node.js release, the runtime in its place.
 */
import { readFileSync } from 'node:fs';
import { Gauge } from 'prom-client';
import type { Registry as MetricsRegistry } from 'prom-client';

export const BUILD_INFO = 'external_dns_build_info';

export interface BuildInfo {
  version: string;
  /** The source revision, or 'unknown' when the build did not record one. */
  revision: string;
  goVersion: string;
  os: string;
  arch: string;
}

/** What this process is: Hostwarden's version from package.json, the Node.js release and platform. */
export function currentBuildInfo(): BuildInfo {
  return { version: packageVersion(), revision: 'unknown', goVersion: process.version, os: process.platform, arch: process.arch };
}

export function registerBuildInfo(registry: MetricsRegistry, info: BuildInfo = currentBuildInfo()): void {
  if (registry.getSingleMetric(BUILD_INFO) !== undefined) return;
  const gauge = new Gauge({
    name: BUILD_INFO,
    help: "Always 1, labelled with the 'version' and 'revision' of the build and the runtime's 'go_version' (the Node.js release), 'os' and 'arch'.",
    labelNames: ['arch', 'go_version', 'os', 'revision', 'version'],
    registers: [registry],
  });
  gauge.set({ arch: info.arch, go_version: info.goVersion, os: info.os, revision: info.revision, version: info.version }, 1);
}

/** The version in package.json (`--version`, build_info); 'unknown' when it is not beside the build. */
export function packageVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: string };
    return pkg.version ?? 'unknown';
  } catch {
    // A build without package.json beside it still serves the metric.
    return 'unknown';
  }
}
