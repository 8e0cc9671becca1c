// The reference provider's errors: what its backend throws, how each is classified, and the
// Checker's reasons beyond the shared ones.
export { type ReferenceBackendCode, ReferenceBackendError } from './backend-error.js';
export { ReferenceCheckReason } from './checker.js';
export { classifyBackendError } from './classify.js';
