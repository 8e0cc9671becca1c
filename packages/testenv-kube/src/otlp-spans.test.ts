import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { descendantsOf, findSpanChain, parseOtlpJsonLines } from './otlp-spans.js';

const fixture = readFileSync(join(__dirname, '__fixtures__', 'traces.jsonl'), 'utf8');

describe('the file exporter output', () => {
  const spans = parseOtlpJsonLines(fixture);

  it('flattens every span with its service and attributes', () => {
    expect(spans.map((s) => s.name).sort()).toEqual(
      ['kubernetes.createPod', 'kubernetes.listPods', 'provider.create', 'reconcile', 'reconcile'].sort(),
    );
    const root = spans.find((s) => s.name === 'reconcile' && s.attributes['proxy.name'] === 'squid-a');
    expect(root?.service).toBe('egress-proxies-operator');
    expect(root?.parentSpanId).toBe('');
    expect(
      spans.find((s) => s.name === 'kubernetes.createPod')?.attributes['http.response.status_code'],
    ).toBe(201);
  });

  it('finds reconcile -> provider.create -> kubernetes.* as parent and child in one trace', () => {
    const chain = findSpanChain(
      spans,
      ['reconcile', 'provider.create', 'kubernetes.createPod'],
      (s) => s.attributes['proxy.name'] === 'squid-a',
    );
    expect(chain?.map((s) => s.name)).toEqual(['reconcile', 'provider.create', 'kubernetes.createPod']);
    expect(new Set(chain?.map((s) => s.traceId)).size).toBe(1);
    expect(findSpanChain(spans, ['reconcile', 'provider.create', 'kubernetes.*'])?.[2]?.name).toMatch(
      /^kubernetes\./,
    );
  });

  it('does not link spans of another trace or a sibling, and honours the root filter', () => {
    // The second reconcile (another Proxy) has no provider.create below it.
    expect(
      findSpanChain(spans, ['reconcile', 'provider.create'], (s) => s.attributes['proxy.name'] === 'other'),
    ).toBeUndefined();
    // createPod is a child of provider.create, not of reconcile.
    expect(findSpanChain(spans, ['reconcile', 'kubernetes.createPod'])).toBeUndefined();
  });

  it('lists the descendants of a span', () => {
    const create = spans.find((s) => s.name === 'provider.create');
    expect(
      descendantsOf(spans, create!)
        .map((s) => s.name)
        .sort(),
    ).toEqual(['kubernetes.createPod', 'kubernetes.listPods']);
  });

  it('reads an empty file as no spans and rejects a line that is not JSON', () => {
    expect(parseOtlpJsonLines('\n')).toEqual([]);
    expect(() => parseOtlpJsonLines('not json')).toThrow();
  });
});
