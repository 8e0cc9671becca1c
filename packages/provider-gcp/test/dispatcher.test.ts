import { Agent, type Dispatcher } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { type Setup, setup } from './helpers.js';

let s: Setup;
afterEach(async () => {
  await s?.close();
});

/** An undici Agent that counts the requests it dispatches. */
class CountingAgent extends Agent {
  count = 0;
  override dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    this.count += 1;
    return super.dispatch(options, handler);
  }
}

describe('transport injection', () => {
  it('sends every Compute request through the given dispatcher', async () => {
    const agent = new CountingAgent();
    s = await setup({}, { dispatcher: agent });
    await s.provider.listByTag();
    await s.provider.check();
    expect(agent.count).toBe(2);
    await agent.close();
  });
});
