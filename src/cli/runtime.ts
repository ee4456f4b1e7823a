/**
 * Which Node.js releases Hostwarden supports: every LTS line still maintained upstream, each tested
 * in CI (.ci/run). The dates are the Node.js release schedule's end-of-life dates; a process
 * started on a line past its date, on an odd-numbered line (never LTS) or below `engines` warns once
 * at start-up and names the supported lines. A line newer than this table is taken as supported:
 * the table is updated when CI adds it.
 */
export interface ReleaseLine {
  major: number;
  /** Last day of upstream maintenance, ISO date. */
  endOfLife: string;
  lts: boolean;
}

export const RELEASE_LINES: readonly ReleaseLine[] = [
  { major: 20, endOfLife: '2026-04-30', lts: true },
  { major: 21, endOfLife: '2024-06-01', lts: false },
  { major: 22, endOfLife: '2027-04-30', lts: true },
  { major: 23, endOfLife: '2025-06-01', lts: false },
  { major: 24, endOfLife: '2028-04-30', lts: true },
  { major: 25, endOfLife: '2026-06-01', lts: false },
  { major: 26, endOfLife: '2029-04-30', lts: true },
];

/** The oldest version `engines` in package.json accepts. */
export const MINIMUM_NODE = '20.19';

/** The LTS lines still maintained on `today`, e.g. [22, 24, 26]. */
export function supportedLines(today: Date): number[] {
  const day = today.toISOString().slice(0, 10);
  return RELEASE_LINES.filter((l) => l.lts && l.endOfLife >= day).map((l) => l.major);
}

/** A warning for this Node.js version on `today`, or undefined when it is a supported release. */
export function runtimeWarning(version: string, today: Date): string | undefined {
  const [major = 0, minor = 0] = version.replace(/^v/, '').split('.').map(Number);
  const supported = supportedLines(today);
  const advice = `Hostwarden supports the Node.js LTS releases still maintained upstream (${supported.join(', ')} today)`;
  const [minMajor = 0, minMinor = 0] = MINIMUM_NODE.split('.').map(Number);
  if (major < minMajor || (major === minMajor && minor < minMinor))
    return `Node.js ${version} is older than ${MINIMUM_NODE}, the oldest Hostwarden runs on; ${advice}`;
  const line = RELEASE_LINES.find((l) => l.major === major);
  if (line === undefined) return undefined;
  const day = today.toISOString().slice(0, 10);
  if (line.endOfLife < day) return `Node.js ${major} reached end of life on ${line.endOfLife} and gets no security fixes; ${advice}`;
  if (!line.lts) return `Node.js ${major} is not an LTS release (maintained until ${line.endOfLife}); ${advice}`;
  return undefined;
}
