import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PYTHON, run, runText } from './iso-tools.js';

const PYCDLIB_JUDGE = fileURLToPath(new URL('./pycdlib-judge.py', import.meta.url));

export interface PycdlibReport {
  rockRidge: boolean;
  rockRidgeVersion: string;
  joliet: boolean;
  rr: Record<string, { length: number; sha256: string }>;
  jolietFiles: Record<string, { length: number; sha256: string }>;
  iso9660: string[];
}

/** Names from an `isoinfo -l` listing, without `.` and `..`. */
export function isoinfoNames(listing: string): string[] {
  const names: string[] = [];
  for (const line of listing.split('\n')) {
    const m = /\]\s+(.*?)\s*$/.exec(line);
    if (m && m[1] !== '.' && m[1] !== '..') names.push(m[1]!);
  }
  return names;
}

export function isoinfoDetails(iso: string): string {
  return runText('isoinfo', ['-d', '-i', iso]);
}

/** cdrkit's structure verifier: checks records, path tables and Rock Ridge against the standard. */
export function isovfy(iso: string): string {
  return runText('isovfy', [iso]);
}

export function isoinfoList(iso: string, tree: '-R' | '-J' | null): string[] {
  return isoinfoNames(runText('isoinfo', [...(tree ? [tree] : []), '-l', '-i', iso]));
}

export function isoinfoExtract(iso: string, tree: '-R' | '-J', name: string): Buffer {
  return run('isoinfo', [tree, '-x', `/${name}`, '-i', iso]).stdout;
}

function readTree(dir: string): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  for (const name of readdirSync(dir).sort()) out.set(name, readFileSync(join(dir, name)));
  return out;
}

export function xorrisoExtract(iso: string, into: string): Map<string, Buffer> {
  run('xorriso', ['-osirrox', 'on', '-indev', iso, '-extract', '/', into]);
  return readTree(into);
}

export function bsdtarList(iso: string): string[] {
  return runText('bsdtar', ['-tf', iso])
    .split('\n')
    .map((l) => l.replace(/^\.\//, ''))
    .filter((l) => l !== '' && l !== '.');
}

export function bsdtarExtract(iso: string, into: string): Map<string, Buffer> {
  mkdirSync(into, { recursive: true });
  run('bsdtar', ['-xf', iso, '-C', into]);
  return readTree(into);
}

/** `7z l -slt` prints one `Path = ...` per item; the first names the archive itself. */
export function sevenZipList(iso: string): string[] {
  const out = runText('7z', ['l', '-slt', iso]);
  const body = out.slice(out.indexOf('----------'));
  return [...body.matchAll(/^Path = (.*)$/gm)].map((m) => m[1]!);
}

export function sevenZipExtract(iso: string, into: string): Map<string, Buffer> {
  run('7z', ['x', '-y', `-o${into}`, iso]);
  return readTree(into);
}

export function pycdlibReport(iso: string): PycdlibReport {
  return JSON.parse(runText(PYTHON, [PYCDLIB_JUDGE, iso])) as PycdlibReport;
}

/** The filesystem label blkid (what cloud-init's NoCloud uses to find the seed) reports. */
export function blkidLabel(iso: string): { label: string; type: string } {
  const out = runText('blkid', ['-p', '-o', 'export', iso]);
  const get = (k: string) => new RegExp(`^${k}=(.*)$`, 'm').exec(out)?.[1] ?? '';
  return { label: get('LABEL'), type: get('TYPE') };
}
