/**
 * The schema builders, as one namespace: `s.object({...})`, `s.string().min(1)`,
 * `s.int(1, 65536).default(10)`. Every issue is a sentence that names the bad value and what
 * was expected, and an unknown key gets a did-you-mean.
 */
export { array } from './array.js';
export { object } from './object.js';
export { record } from './record.js';
export { boolean, int, number, oneOf as enum, string, unknown } from './scalars.js';
