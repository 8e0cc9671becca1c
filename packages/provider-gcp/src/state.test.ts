import { describe, expect, it } from 'vitest';
import { mapState } from './state.js';

describe('mapState', () => {
  it.each([
    ['PROVISIONING', undefined, 'Provisioning'],
    ['PROVISIONING', '203.0.113.1', 'Provisioning'],
    ['STAGING', '203.0.113.1', 'Provisioning'],
    ['REPAIRING', undefined, 'Provisioning'],
    ['RUNNING', undefined, 'Provisioning'],
    ['RUNNING', '', 'Provisioning'],
    ['RUNNING', '203.0.113.1', 'Running'],
    ['STOPPING', '203.0.113.1', 'Stopped'],
    ['STOPPED', undefined, 'Stopped'],
    ['SUSPENDING', undefined, 'Stopped'],
    ['SUSPENDED', undefined, 'Stopped'],
    ['TERMINATED', '203.0.113.1', 'Terminated'],
    ['SOMETHING_NEW', '203.0.113.1', 'Stopped'],
    [undefined, undefined, 'Stopped'],
  ])('%s with ip %j -> %s', (status, ip, want) => {
    expect(mapState(status, ip)).toBe(want);
  });
});
