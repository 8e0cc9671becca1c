/** Reason codes shared by every Checker; providers may add their own (for example `PoolNotFound`). */
export const CheckReason = {
  Ready: 'Ready',
  Timeout: 'Timeout',
  Unreachable: 'Unreachable',
  Unauthorized: 'Unauthorized',
  Forbidden: 'Forbidden',
  CredentialsUnavailable: 'CredentialsUnavailable',
  CertificateInvalid: 'CertificateInvalid',
  HostKeyMismatch: 'HostKeyMismatch',
  APIError: 'APIError',
  NotFound: 'NotFound',
  QuotaExceeded: 'QuotaExceeded',
} as const;

/** One of the shared reason codes. */
export type SharedCheckReason = (typeof CheckReason)[keyof typeof CheckReason];

/** One Checker target's health. */
export interface CheckResult {
  /** What was checked: a host, node, project or API server name, in config order. */
  target: string;
  /** Where it was reached (host:port, URL). */
  address: string;
  /** True when the target can serve create, get, delete and list right now. */
  ready: boolean;
  /** `Ready` when ready; otherwise a shared or provider-specific reason code. */
  reason: string;
  /** Human-readable detail. Never contains credentials. */
  message: string;
  /** Facts gathered as far as the check got (versions, free space, permissions). */
  details: Record<string, string>;
}
