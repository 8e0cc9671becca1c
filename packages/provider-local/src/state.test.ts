import { InstanceState } from '@egress-proxies/contract';
import { describe, expect, it } from 'vitest';
import { stateOf } from './state.js';

describe('state table', () => {
  it('maps each process condition to one state', () => {
    expect(stateOf('accepting')).toBe(InstanceState.Running);
    expect(stateOf('alive-not-accepting')).toBe(InstanceState.Provisioning);
    expect(stateOf('absent')).toBe(InstanceState.Stopped);
  });
});
