import { describe, expect, it } from 'vitest';
import { LOCAL_STATE_KIND } from './marks.js';
import { decodeState, encodeState } from './state-file.js';

describe('state file', () => {
  it('round-trips the mark and the runtime fields', () => {
    const record = {
      uid: 'u-1',
      createdAt: new Date('2026-01-02T03:04:05.000Z'),
      installation: 'inst',
      namespace: 'ns',
      proxyName: 'p',
      engine: 'squid' as const,
      bindAddress: '127.0.0.1',
      port: 40001,
      localAddress: '10.0.0.7',
      pid: 1234,
      startTime: '987654',
    };
    const text = encodeState(record);
    expect(JSON.parse(text)).toMatchObject({
      kind: LOCAL_STATE_KIND,
      managed: 'true',
      uid: 'u-1',
      createdAt: '2026-01-02T03:04:05.000Z',
      installation: 'inst',
    });
    expect(decodeState(text)).toEqual({ kind: 'marked', record });
  });

  it('reads a missing uid as empty and an unparsable createdAt as undefined', () => {
    const d = decodeState(
      JSON.stringify({ kind: LOCAL_STATE_KIND, managed: 'true', createdAt: 'yesterday' }),
    );
    expect(d).toEqual({ kind: 'marked', record: { uid: '' } });
  });

  it('drops runtime fields that do not parse instead of failing', () => {
    const d = decodeState(
      JSON.stringify({
        kind: LOCAL_STATE_KIND,
        managed: 'true',
        uid: 'u',
        port: 70000,
        pid: 'x',
        startTime: 'abc',
        bindAddress: 'nope',
        engine: 'java',
      }),
    );
    expect(d).toEqual({ kind: 'marked', record: { uid: 'u' } });
  });

  it('treats another kind or a missing managed flag as foreign', () => {
    expect(decodeState(JSON.stringify({ kind: 'other/v1', managed: 'true', uid: 'u' })).kind).toBe('foreign');
    expect(decodeState(JSON.stringify({ kind: LOCAL_STATE_KIND, uid: 'u' })).kind).toBe('foreign');
    expect(decodeState(JSON.stringify({ kind: LOCAL_STATE_KIND, managed: 'false', uid: 'u' })).kind).toBe(
      'foreign',
    );
  });

  it('treats garbage as unreadable', () => {
    expect(decodeState('{"kind": "egress').kind).toBe('unreadable');
    expect(decodeState('[1,2]').kind).toBe('unreadable');
    expect(decodeState('null').kind).toBe('unreadable');
    expect(decodeState(JSON.stringify({ kind: LOCAL_STATE_KIND, managed: 'true', uid: 7 })).kind).toBe(
      'unreadable',
    );
  });
});
