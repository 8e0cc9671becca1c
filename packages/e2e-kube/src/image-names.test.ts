import { describe, expect, it } from 'vitest';
import { qualifiedImage } from './image-names.js';

describe('qualifiedImage', () => {
  it('puts short names under docker.io as the kubelet does', () => {
    expect(qualifiedImage('egress-proxies/squid:bookworm')).toBe('docker.io/egress-proxies/squid:bookworm');
    expect(qualifiedImage('busybox:1')).toBe('docker.io/library/busybox:1');
  });
  it('keeps names that carry a registry host', () => {
    expect(qualifiedImage('registry.k8s.io/pause:3.10')).toBe('registry.k8s.io/pause:3.10');
    expect(qualifiedImage('localhost:5000/x:1')).toBe('localhost:5000/x:1');
    expect(qualifiedImage('localhost/x:1')).toBe('localhost/x:1');
  });
});
