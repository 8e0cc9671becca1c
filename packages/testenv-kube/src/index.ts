export { type ControlPlaneBinaries, ensureControlPlaneBinaries } from './binaries.js';
export {
  type KubeControlPlane,
  type KubeResponse,
  type KubeUser,
  type PolicyRule,
  startKubeControlPlane,
} from './control-plane.js';
