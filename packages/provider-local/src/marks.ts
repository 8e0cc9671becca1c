/**
 * How local marks its instances: one JSON state file per instance,
 * `<stateDir>/<LOCAL_INSTANCES_DIR>/<name>.json`; the file is the mark. `kind` tells it apart
 * from anything else a user keeps in the directory (docs/marks.md).
 */
export const LOCAL_INSTANCES_DIR = 'instances';
export const LOCAL_STATE_FILE_SUFFIX = '.json';
export const LOCAL_STATE_KIND = 'egress-proxies.local-instance/v1';
export const LOCAL_STATE_FIELDS = {
  kind: 'kind',
  managed: 'managed',
  uid: 'uid',
  createdAt: 'createdAt',
  installation: 'installation',
} as const;
