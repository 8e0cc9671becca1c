/** Where and how big: each provider maps these onto its own catalogue (see its README). */
export interface Placement {
  region?: string;
  /** A host, node or zone name, depending on the provider. */
  zone?: string;
  /** A key of the provider's machine-type catalogue. */
  machineType?: string;
  /** A key of the provider's image catalogue (some providers also accept a URL). */
  image?: string;
}

/** Everything a provider needs to create one proxy machine. */
export interface CreateRequest {
  /** The deterministic instance name (`instanceName(namespace, name)`); the idempotency key. */
  name: string;
  /** The owning Proxy's namespace. */
  namespace: string;
  /** The owning Proxy's name. */
  proxyName?: string;
  /** The owning Proxy's UID, written into the instance's mark. */
  uid: string;
  /** The TCP port the proxy listens on. */
  port: number;
  /** Cloud-init user-data. A secret: never logged, never in an error. */
  cloudInit?: string;
  placement: Placement;
  /** The installation id written into the mark, so installations sharing a backend do not collect each other's instances. */
  installation?: string;
  /** An owning object (the operator passes the Proxy) for backends that can reference it. */
  owner?: { apiVersion: string; kind: string; name: string; uid: string };
}
