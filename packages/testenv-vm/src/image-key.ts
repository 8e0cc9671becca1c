import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { TestEnvVmError } from './errors.js';

// Must stay in step with input_key() in the build script: the SHA-256 of the listing that
// `sha256sum` prints ("<hex>  <path>\n") for every file under the tools directory, sorted
// bytewise by relative path. A test runs the script to prove both agree.
const PLAIN_NAME = /^[A-Za-z0-9._/+-]+$/;

async function listFiles(root: string, dir = root): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await listFiles(root, full)));
    else if (entry.isFile()) out.push(relative(root, full).split(sep).join('/'));
  }
  return out;
}

function byteOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

/** The cache key of the image the tools directory builds: changes when any file in it changes. */
export async function proxyImageKey(toolsDir: string): Promise<string> {
  const files = (await listFiles(toolsDir)).sort(byteOrder);
  const listing = createHash('sha256');
  for (const file of files) {
    if (!PLAIN_NAME.test(file)) {
      throw new TestEnvVmError(
        'INVALID_ARGUMENT',
        `input file name ${JSON.stringify(file)} is not plain ASCII`,
      );
    }
    const digest = createHash('sha256')
      .update(await readFile(join(toolsDir, file)))
      .digest('hex');
    listing.update(`${digest}  ${file}\n`);
  }
  return listing.digest('hex');
}

/** The cache root shared by the repository's tools. */
export function cacheRoot(env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env.EGRESS_PROXIES_CACHE;
  if (fromEnv) return fromEnv;
  return join(env.HOME || homedir(), '.cache', 'egress-proxies');
}

/** Where the image built from these inputs lives (whether or not it is built yet). */
export async function proxyImageDir(toolsDir: string, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  return join(cacheRoot(env), 'proxy-image', await proxyImageKey(toolsDir));
}
