import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface FakeTls {
  /** The throwaway CA's certificate (PEM); trust it to reach the fake. */
  caPem: string;
  /** The server's key and certificate (PEM), for localhost and 127.0.0.1. */
  key: string;
  cert: string;
}

function openssl(dir: string, args: string[]): void {
  try {
    execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (err) {
    const stderr = String((err as { stderr?: Buffer }).stderr ?? '');
    throw new Error(
      `the fake PVE needs the openssl command to mint its throwaway CA: openssl ${args[0]} failed: ${stderr || (err as Error).message}`,
    );
  }
}

/**
 * A throwaway CA and a server certificate signed by it, made with the `openssl` command (Node's
 * crypto cannot sign X.509 certificates). EC P-256 keys keep it fast; nothing outlives the call.
 */
export function mintFakeTls(hostnames: string[] = ['localhost'], ips: string[] = ['127.0.0.1']): FakeTls {
  const dir = mkdtempSync(join(tmpdir(), 'fake-pve-tls-'));
  try {
    const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
    openssl(dir, [
      'req',
      '-x509',
      ...ec,
      '-keyout',
      'ca.key',
      '-out',
      'ca.pem',
      '-days',
      '2',
      '-subj',
      '/CN=fake-pve-ca',
    ]);
    openssl(dir, ['req', ...ec, '-keyout', 'srv.key', '-out', 'srv.csr', '-subj', '/CN=fake-pve']);
    const san = [...hostnames.map((h) => `DNS:${h}`), ...ips.map((i) => `IP:${i}`)].join(',');
    writeFileSync(join(dir, 'ext.cnf'), `subjectAltName=${san}\nbasicConstraints=CA:FALSE\n`);
    openssl(dir, [
      'x509',
      '-req',
      '-in',
      'srv.csr',
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-out',
      'srv.pem',
      '-days',
      '2',
      '-extfile',
      'ext.cnf',
    ]);
    return {
      caPem: readFileSync(join(dir, 'ca.pem'), 'utf8'),
      key: readFileSync(join(dir, 'srv.key'), 'utf8'),
      cert: readFileSync(join(dir, 'srv.pem'), 'utf8'),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
