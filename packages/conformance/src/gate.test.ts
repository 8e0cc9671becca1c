import { describe, expect, it } from 'vitest';
import { createStepGate } from './gate.js';

describe('createStepGate', () => {
  it('holds callers until released and counts them', async () => {
    const gate = createStepGate();
    let passed = 0;
    const a = gate.wait().then(() => passed++);
    const b = gate.wait().then(() => passed++);
    await gate.reached;
    expect(gate.held).toBe(2);
    expect(passed).toBe(0);
    gate.release();
    await Promise.all([a, b]);
    expect(passed).toBe(2);
    expect(gate.held).toBe(0);
    await gate.wait();
  });

  it('lets an aborted caller go with the signal reason and stops counting it', async () => {
    const gate = createStepGate();
    const ac = new AbortController();
    const waiting = gate.wait(ac.signal);
    await gate.reached;
    ac.abort(new Error('stop now'));
    await expect(waiting).rejects.toThrow('stop now');
    expect(gate.held).toBe(0);
    const pre = new AbortController();
    pre.abort();
    await expect(gate.wait(pre.signal)).rejects.toMatchObject({ name: 'AbortError' });
  });
});
