/**
 * Debian's Chromium driven by playwright-core (no browser download): launch with the flags this
 * machine kind needs, run axe-core in a page, and the directory screenshots go to.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import type { Browser, Page } from 'playwright-core';

export const CHROMIUM_PATH = '/usr/bin/chromium';
/** Gitignored; CI keeps the files as test artefacts. */
export const ARTIFACTS_DIR = fileURLToPath(new URL('../console/artifacts/', import.meta.url));
const AXE_PATH = fileURLToPath(new URL('../../node_modules/axe-core/axe.min.js', import.meta.url));

/** A skip reason for node:test, or false when Chromium is installed (.ci/run installs it). */
export function chromiumSkipReason(): string | false {
  return existsSync(CHROMIUM_PATH) ? false : `${CHROMIUM_PATH} is missing (apt-get install chromium; .ci/run installs it)`;
}

/**
 * Playwright gives every launch a fresh temporary profile. Without the background-networking
 * flags Chromium dials Google's hosts at start and this machine's closed network refuses them.
 */
export async function launchChromium(): Promise<Browser> {
  await mkdir(ARTIFACTS_DIR, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    timeout: 20_000,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[]; failureSummary?: string }[];
}

/**
 * Runs axe-core in the page. page.addScriptTag adds an inline <script>, which the console's CSP
 * (script-src 'self') rightly blocks; evaluating the file through the DevTools protocol is not
 * subject to the page's CSP, so the test keeps the policy on.
 */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(await readFile(AXE_PATH, 'utf8'));
  return page.evaluate(async () => {
    // axe.run() without a context checks the whole document.
    const axe = (globalThis as unknown as { axe: { run(): Promise<{ violations: AxeViolation[] }> } }).axe;
    const result = await axe.run();
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => ({ target: n.target, failureSummary: n.failureSummary })),
    }));
  });
}

/** Serious or critical violations, one line each, for an assertion message. */
export function seriousViolations(violations: readonly AxeViolation[]): string[] {
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id}: ${v.help} at ${v.nodes.map((n) => JSON.stringify(n.target)).join(' ')}`);
}
