// Plain JavaScript, so the status page bench (a .mjs script run by node) and the browser tests
// launch Chromium the same way; chromium.d.mts types it for the tests.
import { join } from 'node:path';

/** Debian's Chromium (the chromium package): the tests and the bench never download a browser. */
export const CHROMIUM = '/usr/bin/chromium';

/**
 * Launches headless Chromium (driven by playwright-core). Chromium keeps its crash reports and
 * caches under the home directory's XDG folders whatever its profile: both go in `dir`, so a run
 * leaves nothing in the home directory.
 */
export async function launchChromium(dir, executablePath = CHROMIUM) {
  const { chromium } = await import('playwright-core');
  return chromium.launch({ executablePath, args: ['--no-sandbox'], env: chromiumEnv(dir) });
}

/**
 * This process's environment with Chromium's XDG folders in `dir`: for a Chromium started some
 * other way (the crawler guide's examples launch their own).
 */
export function chromiumEnv(dir) {
  return { ...process.env, XDG_CONFIG_HOME: join(dir, 'xdg-config'), XDG_CACHE_HOME: join(dir, 'xdg-cache') };
}
