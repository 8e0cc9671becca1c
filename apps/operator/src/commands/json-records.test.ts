import { describe, expect, it } from 'vitest';
import { proxyRecord as proxy } from '../../test/support/proxy-record.js';
import { poolJson, providerJson, proxyJson } from './json-records.js';

describe('--output json records', () => {
  it('a Proxy keeps JSON types: healthy a boolean, the endpoint an object, a type field', () => {
    const rec = proxyJson(
      proxy({
        namespace: 'team-a',
        name: 'p1',
        status: { phase: 'Ready', healthy: true, message: 'probe ok' },
        endpoint: { host: '127.0.0.1', port: 40001 },
      }),
    );
    expect(rec).toEqual({
      type: 'proxy',
      namespace: 'team-a',
      name: 'p1',
      provider: 'local',
      phase: 'Ready',
      deleting: false,
      endpoint: { host: '127.0.0.1', port: 40001 },
      healthy: true,
      message: 'probe ok',
    });
  });

  it('a Proxy not yet running has no endpoint; one being deleted says so', () => {
    const rec = proxyJson(
      proxy({
        deletionTimestamp: '2026-01-01T00:00:00Z',
        status: { phase: 'Provisioning', healthy: false },
        endpoint: { host: '127.0.0.1', port: 40002 },
      }),
    );
    expect(rec).toMatchObject({ phase: 'Deleting', deleting: true, healthy: false });
    expect(rec).not.toHaveProperty('endpoint');
  });

  it('a provider: ready a boolean, its type as providerType (type is the record kind)', () => {
    const rec = providerJson({
      name: 'kvm-home',
      status: {
        type: 'kvm',
        ready: false,
        summary: '0/1',
        targets: [
          { target: 'nas1', address: 'nas1:22', ready: false, reason: 'Unreachable', lastCheckTime: 't' },
        ],
      },
    });
    expect(rec).toEqual({
      type: 'provider',
      name: 'kvm-home',
      providerType: 'kvm',
      ready: false,
      summary: '0/1',
      targets: [{ target: 'nas1', ready: false, reason: 'Unreachable' }],
    });
  });

  it('a pool: its view under the record type, every member with where it listens', () => {
    const member = {
      name: 'crawl-abcde',
      provider: 'local',
      ip: '127.0.0.1',
      port: 40017,
      createdAt: '2026-12-04T10:00:00.000Z',
      ready: true,
      cooledDown: false,
    };
    const view = { key: 'default/crawl', desired: 2, replicas: 1, ready: 1, updated: 1, members: [member] };
    const rec = poolJson({ ...view, gateway: 'http://127.0.0.1:8080' });
    expect(rec).toMatchObject({
      type: 'pool',
      pool: 'default/crawl',
      desired: 2,
      replicas: 1,
      members: [member],
    });
    expect(rec).not.toHaveProperty('key');
  });

  it('a pool whose gateway also serves SOCKS5 names both addresses', () => {
    const view = { key: 'default/crawl', desired: 1, replicas: 0, ready: 0, updated: 0, members: [] };
    const rec = poolJson({
      ...view,
      gateway: 'http://10.0.0.5:8080',
      gatewaySocks: 'socks5h://10.0.0.5:1080',
    });
    expect(rec).toMatchObject({ gateway: 'http://10.0.0.5:8080', gatewaySocks: 'socks5h://10.0.0.5:1080' });
  });
});
