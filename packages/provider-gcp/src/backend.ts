/**
 * The seam: the few Compute Engine calls this provider makes, with just the fields it reads.
 * The undici adapter (`rest-client.ts`) and the test fake both sit behind it. Every call takes
 * the caller's signal first.
 */

export interface ComputeAccessConfig {
  type?: string;
  name?: string;
  natIP?: string;
}

export interface ComputeNetworkInterface {
  network?: string;
  subnetwork?: string;
  networkIP?: string;
  accessConfigs?: ComputeAccessConfig[];
}

export interface ComputeInstance {
  id?: string;
  name: string;
  zone?: string;
  status?: string;
  selfLink?: string;
  creationTimestamp?: string;
  machineType?: string;
  labels?: Record<string, string>;
  tags?: { items?: string[] };
  networkInterfaces?: ComputeNetworkInterface[];
  disks?: unknown[];
  metadata?: { items?: { key: string; value?: string }[] };
  serviceAccounts?: { email: string; scopes: string[] }[];
}

export interface ComputeOperationError {
  code?: string;
  message?: string;
}

export interface ComputeOperation {
  name: string;
  id?: string;
  zone?: string;
  operationType?: string;
  targetLink?: string;
  status?: 'PENDING' | 'RUNNING' | 'DONE' | string;
  insertTime?: string;
  endTime?: string;
  progress?: number;
  error?: { errors?: ComputeOperationError[] };
  httpErrorStatusCode?: number;
  httpErrorMessage?: string;
}

export interface AggregatedInstancesPage {
  items?: Record<string, { instances?: ComputeInstance[]; warning?: { code?: string; message?: string } }>;
  nextPageToken?: string;
  unreachables?: string[];
}

export interface AggregatedListParams {
  filter?: string;
  maxResults?: number;
  pageToken?: string;
  returnPartialSuccess?: boolean;
}

export interface OperationListParams {
  filter?: string;
  maxResults?: number;
  orderBy?: string;
}

export interface ComputeQuota {
  metric: string;
  limit: number;
  usage: number;
}

export interface ComputeRegion {
  name: string;
  status?: string;
  quotas?: ComputeQuota[];
}

export interface ComputeFirewall {
  name: string;
  network?: string;
  direction?: string;
  priority?: number;
  sourceRanges?: string[];
  targetTags?: string[];
  allowed?: { IPProtocol: string; ports?: string[] }[];
  description?: string;
  disabled?: boolean;
}

export interface ComputeApi {
  /** `instances.get`. */
  getInstance(signal: AbortSignal | undefined, zone: string, name: string): Promise<ComputeInstance>;
  /** `instances.insert` with a request ID: a repeat returns the first operation. */
  insertInstance(
    signal: AbortSignal | undefined,
    zone: string,
    body: ComputeInstance,
    requestId: string,
  ): Promise<ComputeOperation>;
  /** `instances.delete` with a request ID. */
  deleteInstance(
    signal: AbortSignal | undefined,
    zone: string,
    name: string,
    requestId: string,
  ): Promise<ComputeOperation>;
  /** One page of `instances.aggregatedList`. */
  aggregatedListInstances(
    signal: AbortSignal | undefined,
    params: AggregatedListParams,
  ): Promise<AggregatedInstancesPage>;
  /** `zoneOperations.get`. */
  getZoneOperation(signal: AbortSignal | undefined, zone: string, name: string): Promise<ComputeOperation>;
  /** One page of `zoneOperations.list`. */
  listZoneOperations(
    signal: AbortSignal | undefined,
    zone: string,
    params: OperationListParams,
  ): Promise<{ items?: ComputeOperation[]; nextPageToken?: string }>;
  /** `regions.get`, for quota headroom. */
  getRegion(signal: AbortSignal | undefined, region: string): Promise<ComputeRegion>;
  /** `firewalls.get`. */
  getFirewall(signal: AbortSignal | undefined, name: string): Promise<ComputeFirewall>;
  /** `firewalls.insert` with a request ID. */
  insertFirewall(
    signal: AbortSignal | undefined,
    body: ComputeFirewall,
    requestId: string,
  ): Promise<ComputeOperation>;
  /** Releases connections. */
  close?(): Promise<void>;
}
