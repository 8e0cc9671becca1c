const MARKER = Symbol.for('@egress-proxies/testenv-vm/TestEnvVmError');

export type TestEnvVmErrorCode =
  | 'INVALID_ARGUMENT'
  | 'PREREQUISITE_MISSING'
  | 'IMAGE_BUILD_FAILED'
  | 'IMAGE_INVALID'
  | 'VM_START_FAILED'
  | 'VM_EXITED'
  | 'AGENT_TIMEOUT'
  | 'AGENT_ERROR'
  | 'AGENT_PROTOCOL'
  | 'NETNS_FAILED';

/** Every failure of the VM test environment itself (not of the code under test). */
export class TestEnvVmError extends Error {
  readonly code: TestEnvVmErrorCode;
  readonly [MARKER] = true;

  constructor(code: TestEnvVmErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TestEnvVmError';
    this.code = code;
  }

  /** Works across duplicated copies of this package (realm-safe, unlike instanceof). */
  static isInstance(value: unknown): value is TestEnvVmError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[MARKER] === true;
  }
}
