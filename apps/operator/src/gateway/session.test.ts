import { describe, expect, it } from 'vitest';
import { clientIdentity } from './session.js';

const basic = (s: string) => ({ 'proxy-authorization': `Basic ${Buffer.from(s).toString('base64')}` });

describe('clientIdentity', () => {
  it('splits <user>-session-<id> off the proxy username', () => {
    expect(clientIdentity(basic('alice-session-abc_1:pw'))).toEqual({
      user: 'alice',
      password: 'pw',
      session: 'abc_1',
    });
  });
  it('takes a plain user as it is', () => {
    expect(clientIdentity(basic('alice:p:w'))).toEqual({ user: 'alice', password: 'p:w' });
  });
  it('takes the session header when the username has none', () => {
    expect(clientIdentity({ 'x-egress-session': 's-9' })).toEqual({ session: 's-9' });
    expect(clientIdentity({ ...basic('a-session-u:p'), 'x-egress-session': 'h' }).session).toBe('u');
  });
  it('ignores malformed credentials and session ids', () => {
    expect(clientIdentity({ 'proxy-authorization': 'Bearer abc' })).toEqual({});
    expect(clientIdentity({ 'x-egress-session': 'has space' })).toEqual({});
  });
});
