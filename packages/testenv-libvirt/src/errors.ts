const MARKER = Symbol.for('@egress-proxies/testenv-libvirt/TestEnvError');

export type TestEnvErrorCode =
  | 'INVALID_ARGUMENT'
  | 'COMMAND_FAILED'
  | 'PACKAGE_INSTALL_FAILED'
  | 'DAEMON_START_FAILED'
  | 'DAEMON_STOP_FAILED'
  | 'LOCK_TIMEOUT'
  | 'SSHD_START_FAILED'
  | 'POOL_FAILED'
  | 'TEARDOWN_FAILED';

/** Every failure of the test environment itself (not of the code under test). */
export class TestEnvError extends Error {
  readonly code: TestEnvErrorCode;
  readonly [MARKER] = true;

  constructor(code: TestEnvErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TestEnvError';
    this.code = code;
  }

  /** Works across duplicated copies of this package (realm-safe, unlike instanceof). */
  static isInstance(value: unknown): value is TestEnvError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[MARKER] === true;
  }
}
