import { type ProxySpec, proxySpecSchema } from './proxy.js';
import { type SchemaIssue, validate } from './schema.js';

const MARKER = Symbol.for('@egress-proxies/operator.ProxySpecError');

/** A Proxy spec the schema rejects: every issue, one per line as `path: message`. */
export class ProxySpecError extends Error {
  static readonly code = 'INVALID_PROXY_SPEC';
  readonly [MARKER] = true;
  readonly code = ProxySpecError.code;
  readonly issues: readonly SchemaIssue[];

  constructor(issues: readonly SchemaIssue[]) {
    super(`invalid Proxy spec: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`);
    this.name = 'ProxySpecError';
    this.issues = issues;
  }

  static isInstance(value: unknown): value is ProxySpecError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[MARKER] === true;
  }
}

/** The spec with defaults filled; throws `ProxySpecError` naming every bad field. */
export function validateProxySpec(spec: unknown): ProxySpec {
  const r = validate(proxySpecSchema, spec, 'spec');
  if (!r.ok) throw new ProxySpecError(r.issues);
  return r.value;
}
