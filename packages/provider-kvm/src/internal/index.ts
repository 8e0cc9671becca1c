// Everything beside the public surface: the building blocks the package's own tests, the
// conformance harness and a curious reader use. Not covered by semver: names here may move.
export { classify } from '../errors.js';
export { kvmFlavour } from '../flavour.js';
export {
  KVM_METADATA_NAMESPACE,
  KVM_METADATA_PREFIX,
  METADATA_ATTRIBUTES,
  METADATA_ELEMENT,
} from '../marks.js';
