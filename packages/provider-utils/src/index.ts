export { abortReason, raceAbort, sleep, throwIfAborted } from './abort.js';
export { invalidConfigError, parseConfig } from './config/config-error.js';
export { closest, unknownKeyMessage } from './config/did-you-mean.js';
export {
  absolutePath,
  catalogue,
  cidr,
  cidrList,
  DNS1123_LABEL_RE,
  DNS1123_SUBDOMAIN_RE,
  dns1123Label,
  dns1123Subdomain,
  filePath,
  hostPort,
  IDENTIFIER_RE,
  identifier,
  interfaceName,
  ipAddress,
  isCidr,
  nonEmptyString,
  pattern,
  port,
  range,
  sha256Hex,
  uniqueStrings,
  url,
} from './config/fields.js';
export { formatPath, formatValue, typeName } from './config/format-value.js';
export { type ConfigIssue, ProvidersConfigError } from './config/providers-config-error.js';
export { issuePath, validateWith } from './config/validate-with.js';
export {
  type DefinedProvider,
  defineProvider,
  type OpContext,
  type ProviderDefinition,
  type ProviderOps,
} from './define-provider.js';
export * from './egress/index.js';
export {
  createLogger,
  type LogLine,
  loggerOf,
  type PinoLevel,
  type PinoLike,
  pinoLogger,
  silentLogger,
} from './logger.js';
export {
  createOperationRunner,
  instanceFields,
  type OperationCall,
  type OperationRunner,
  type OperationRunnerOptions,
  providerClosedError,
} from './operation-runner.js';
export { type FactoryProviderOptions, providerFactory } from './provider-factory.js';
export {
  type CreatedProvider,
  createChecked,
  type ProviderEntry,
  ProviderRegistry,
  type ProviderRegistryContext,
} from './registry.js';
export type { ObjectInput, ObjectOutput, Shape } from './schema/object.js';
export * as s from './schema/s.js';
export { NumberSchema, StringSchema } from './schema/scalars.js';
export {
  type CheckContext,
  type Infer,
  type InferInput,
  Schema,
  type SchemaIssue,
  type SchemaPath,
} from './schema/schema.js';
export { activeOpenTelemetry, openTelemetry, traceFields, withSpan } from './tracing.js';
