import { describe, expect, it } from 'vitest';
import { INSTANCE_STATES } from './instance-state.js';
import { PROFILE_ANSWERS, PROFILE_AXES, type ProviderProfile, profileProblems } from './profile.js';

const kvm2: ProviderProfile = {
  readiness: 'provisioning-window',
  createReturn: 'blocking',
  deleteReturn: 'waits',
  ipSource: 'discovered',
  gcMark: 'written-metadata',
  createdAt: 'written-at-create',
  listPartial: 'fail-whole',
  listSkipsUnreadable: true,
  quota: 'detected',
  notFound: 'error-code',
  primaryKey: 'name-is-key',
  provisioningState: 'create-blocks',
  asyncOps: 'none',
  secondaryResources: 'explicit',
  credentials: 'mounted-files',
  clientKind: 'rpc-over-ssh',
  timeouts: 'per-call',
  logging: 'tiered',
  childSpans: 'span-decorator',
  backendTest: 'real-backend-in-ci',
  states: ['Provisioning', 'Running', 'Stopped'],
};

describe('profile', () => {
  it('PROFILE_ANSWERS covers every axis except the boolean and the state list', () => {
    expect([...Object.keys(PROFILE_ANSWERS), 'listSkipsUnreadable', 'states'].sort()).toEqual(
      [...PROFILE_AXES].sort(),
    );
  });

  it('accepts a complete profile', () => {
    expect(profileProblems(kvm2)).toEqual([]);
    expect(profileProblems({ ...kvm2, states: INSTANCE_STATES })).toEqual([]);
  });

  it('names each missing or unknown answer', () => {
    const { quota: _, ...noQuota } = kvm2;
    expect(
      profileProblems({ ...noQuota, readiness: 'eventually', states: ['Gone'], listSkipsUnreadable: 'yes' }),
    ).toEqual([
      'readiness: "eventually" is not one of immediate, provisioning-window',
      'quota: missing (one of absent, detected)',
      'listSkipsUnreadable: expected true or false, got "yes"',
      'states: "Gone" is not a state',
    ]);
    expect(profileProblems(null)).toEqual(['profile must be an object, got null']);
  });

  it('egress is optional (absent reads as shared), but an unknown answer is named', () => {
    expect(profileProblems({ ...kvm2, egress: 'planned' })).toEqual([]);
    expect(profileProblems({ ...kvm2, egress: 'per-proxy' })).toEqual([
      'egress: "per-proxy" is not one of shared, per-instance-cloud, planned, host-addresses',
    ]);
  });
});
