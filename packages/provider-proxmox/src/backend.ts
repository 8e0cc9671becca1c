import type { AgentInterface } from './state.js';

/** One `/cluster/resources?type=vm` entry (reference §2): name/template only with an RRD entry. */
export interface ClusterResource {
  id: string;
  vmid: number;
  node: string;
  type: string;
  status?: string;
  name?: string;
  template?: number;
  lock?: string;
  tags?: string;
}

/** A VM config as GET .../config returns it (reference §4): flat keys plus `digest`. */
export type VmConfig = Record<string, string | number | undefined>;

export interface VmStatus {
  vmid: number;
  status: string;
  qmpstatus?: string;
  lock?: string;
  name?: string;
}

export interface TaskStatus {
  upid: string;
  status: 'running' | 'stopped' | string;
  exitstatus?: string;
  starttime?: number;
}

/** One entry of GET /nodes/{node}/tasks (reference §9): `status` is `RUNNING` for an active task. */
export interface TaskListEntry {
  upid: string;
  node: string;
  type: string;
  id?: string;
  user: string;
  starttime: number;
  endtime?: number;
  status?: string;
}

export interface StorageStatus {
  type?: string;
  content?: string;
  shared?: number;
  enabled?: number;
  active?: number;
  total?: number;
  used?: number;
  avail?: number;
}

export interface StorageContentEntry {
  volid: string;
  content?: string;
  size?: number;
  ctime?: number;
}

export interface CloneParams {
  newid: number;
  name: string;
  description: string;
  /** The node the clone ends up on when it is not the template's (needs shared storage). */
  target?: string;
}

/**
 * The seam: one method per endpoint, the signal first. The production adapter (client.ts) and
 * the tests' wire-level fake both sit behind it; provider code never sees HTTP.
 */
export interface Backend {
  clusterResources(signal: AbortSignal): Promise<ClusterResource[]>;
  vmConfig(signal: AbortSignal, node: string, vmid: number): Promise<VmConfig>;
  setVmConfig(
    signal: AbortSignal,
    node: string,
    vmid: number,
    params: Record<string, string | number>,
  ): Promise<void>;
  vmStatus(signal: AbortSignal, node: string, vmid: number): Promise<VmStatus>;
  agentInterfaces(signal: AbortSignal, node: string, vmid: number): Promise<AgentInterface[]>;
  cloneVm(signal: AbortSignal, node: string, template: number, params: CloneParams): Promise<string>;
  resizeDisk(signal: AbortSignal, node: string, vmid: number, disk: string, size: string): Promise<string>;
  startVm(signal: AbortSignal, node: string, vmid: number): Promise<string>;
  stopVm(signal: AbortSignal, node: string, vmid: number): Promise<string>;
  destroyVm(signal: AbortSignal, node: string, vmid: number): Promise<string>;
  uploadIso(
    signal: AbortSignal,
    node: string,
    storage: string,
    filename: string,
    data: Uint8Array,
  ): Promise<string>;
  deleteVolume(signal: AbortSignal, node: string, storage: string, volume: string): Promise<string | null>;
  storageContent(
    signal: AbortSignal,
    node: string,
    storage: string,
    content: string,
  ): Promise<StorageContentEntry[]>;
  storageStatus(signal: AbortSignal, node: string, storage: string): Promise<StorageStatus>;
  taskStatus(signal: AbortSignal, node: string, upid: string): Promise<TaskStatus>;
  /** The node's active tasks of `type` (`source=active`): what runs there now. */
  activeTasks(signal: AbortSignal, node: string, type: string): Promise<TaskListEntry[]>;
  version(signal: AbortSignal): Promise<{ version: string; release?: string }>;
  nodeStatus(signal: AbortSignal, node: string): Promise<{ kversion?: string; pveversion?: string }>;
  /** GET /access/permissions?path=...: the calling token's privileges per path. */
  permissions(signal: AbortSignal, path: string): Promise<Record<string, Record<string, number>>>;
}

export type BackendMethod = keyof Backend;
