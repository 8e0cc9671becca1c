// The values a caller reads results and classifies failures with (enum values, libvirt's error
// numbers, the error classes), without the client: no procedure tables and no Node built-in load
// with it, so a library can classify errors at import time and load the client with its first
// connection. The main entry exports the same bindings.
export * from './constants.js';
export * from './enums.js';
export * from './error-numbers.js';
export * from './errors.js';
