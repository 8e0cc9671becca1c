export { MAX_FILE_SIZE, VOLUME_ID } from './constants.js';
export { SeedInputError, SeedTooLargeError } from './errors.js';
export { guestAgentScript } from './guest-agent.js';
export { instanceIdFor } from './instance-id.js';
export { DEFAULT_DATE } from './iso-date.js';
export { type MetaDataInput, metaData } from './meta-data.js';
export type { SeedContent, SeedFiles } from './seed-input.js';
export { buildSeedIso, type SeedIsoOptions } from './seed-iso.js';
export { composeVendorData } from './vendor-data.js';
