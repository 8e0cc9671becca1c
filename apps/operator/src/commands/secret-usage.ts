/** The mount paths the manifests and the chart give each credential Secret. */
export const SECRET_MOUNTS = {
  'kvm-ssh': { secretName: 'kvm-ssh', mountPath: '/etc/egress-proxies/secrets/kvm' },
  'proxmox-token': { secretName: 'proxmox-token', mountPath: '/etc/egress-proxies/secrets/proxmox' },
  'gcp-key': { secretName: 'gcp-credentials', mountPath: '/etc/egress-proxies/secrets/gcp' },
} as const;

export type SecretKind = keyof typeof SECRET_MOUNTS;

export const SECRET_USAGE = `usage: egress-proxies secret kvm-ssh --key FILE --known-hosts FILE [flags]
       egress-proxies secret proxmox-token --token-file FILE [--ca FILE] [flags]
       egress-proxies secret gcp-key --key FILE [flags]

Prints a Kubernetes Secret holding the credential files under the key names the operator's
manifests and chart mount (kvm-ssh: id_ed25519, known_hosts at ${SECRET_MOUNTS['kvm-ssh'].mountPath};
proxmox-token: token, ca.crt at ${SECRET_MOUNTS['proxmox-token'].mountPath}; gcp-credentials:
key.json at ${SECRET_MOUNTS['gcp-key'].mountPath}). Each file is checked first; an error names the
file, never its content.

  --key FILE                    kvm-ssh: the SSH private key; gcp-key: the service-account JSON key
  --known-hosts FILE            kvm-ssh: known_hosts lines for every host (ssh-keyscan output)
  --token-file FILE             proxmox-token: one line USER@REALM!TOKENID=SECRET
  --ca FILE                     proxmox-token: the PVE CA certificate (PEM), when not publicly trusted
  --name NAME                   the Secret's name (default: the name the manifests mount)
  --namespace NS                the Secret's namespace (default egress-proxies-system)
  --apply                       create or update the Secret through the kubeconfig instead of printing it
  --kubeconfig PATH             with --apply: this kubeconfig ($KUBECONFIG or ~/.kube/config otherwise)
`;

/** The flags `secret` takes (each kind accepts only its own, see KIND_FLAGS). */
export const SECRET_OPTIONS = {
  key: { type: 'string' },
  'known-hosts': { type: 'string' },
  'token-file': { type: 'string' },
  ca: { type: 'string' },
  name: { type: 'string' },
  namespace: { type: 'string' },
  apply: { type: 'boolean' },
  kubeconfig: { type: 'string' },
} as const;
