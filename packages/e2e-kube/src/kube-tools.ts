import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { kubeToolEnv } from '@egress-proxies/testenv-kube';

export interface KubeTools {
  kubeconfig: string;
  /** Runs helm; rejects with its output on a non-zero exit. */
  helm(args: string[], opts?: { cwd?: string }): Promise<string>;
  kubectl(args: string[], opts?: { input?: string; cwd?: string }): Promise<string>;
}

function runTool(
  bin: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  opts: { input?: string; cwd?: string } = {},
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, { cwd: opts.cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      err += d.toString();
    });
    child.on('error', (e) => reject(new Error(`cannot run ${bin}: ${e.message}`)));
    child.on('close', (code) => {
      if (code === 0) resolve(out);
      else reject(new Error(`${bin} ${args.join(' ')} failed (exit ${code}):\n${err}${out}`));
    });
    child.stdin.end(opts.input ?? '');
  });
}

/** helm and kubectl (a command prefix: `[kube-node, 'kubectl']`) against the cluster whose admin kubeconfig is `kubeconfigText`. */
export function kubeTools(o: {
  helm: string;
  kubectl: string[];
  kubeconfigText: string;
  dir: string;
}): KubeTools {
  const kubeconfig = join(o.dir, 'admin.kubeconfig');
  writeFileSync(kubeconfig, o.kubeconfigText, { mode: 0o600 });
  // Their caches and homes go in the run's dir, so the run leaves nothing in the home directory.
  const env = kubeToolEnv(o.dir);
  return {
    kubeconfig,
    helm: (args, opts) => runTool(o.helm, [...args, '--kubeconfig', kubeconfig], env, opts),
    kubectl: (args, opts) => {
      const [bin, ...pre] = o.kubectl;
      return runTool(bin ?? 'kubectl', [...pre, '--kubeconfig', kubeconfig, ...args], env, opts);
    },
  };
}
