import { createHttpProbe } from '../probe/http-probe.js';
import type { PoolView } from '../standalone/standalone-pools.js';
import type { ProxyRecord } from '../standalone/state-file.js';
import { egressThrough } from './check-gateway.js';
import { poolJson } from './json-records.js';
import type { StatusView } from './status-view.js';
import { notDeleting, type UpSession } from './up-session.js';

/** The `curl -x` line for a Ready Proxy, and the URL it fetches. */
function curlFor(
  r: ProxyRecord,
  demoTarget?: string,
): { line: string; host: string; port: number; target: string } | undefined {
  if (!r.endpoint || r.status?.phase !== 'Ready') return undefined;
  const spec = r.spec as { probe?: { target?: string } };
  const target = spec.probe?.target ?? demoTarget;
  if (!target) return undefined;
  const host = r.endpoint.host.includes(':') ? `[${r.endpoint.host}]` : r.endpoint.host;
  const proxy = `http://${host}:${r.endpoint.port}`;
  return { line: `curl -x ${proxy} ${target}`, host: r.endpoint.host, port: r.endpoint.port, target };
}

/**
 * What stopped with `up` although the proxies keep running: each pool's gateway and the demo
 * target, so the curl lines printed earlier no longer answer. Says how to run a gateway alone
 * over the running members.
 */
export function stoppedWithUp(
  gateways: readonly (PoolView & { gateway: string })[],
  demoTarget: string | undefined,
  self: string,
): string[] {
  const lines: string[] = [];
  const gone = [
    ...gateways.map((g) => `the gateway ${g.gateway} of pool ${g.key}`),
    ...(demoTarget ? [`the demo target ${demoTarget}`] : []),
  ];
  if (gone.length === 0) return lines;
  lines.push(`${gone.join(' and ')} stopped with up: the curl lines above no longer answer.`);
  for (const g of gateways) {
    const members = g.members
      .filter((m) => m.ready && m.ip && m.port)
      .map((m) => `${m.name}=${m.ip?.includes(':') ? `[${m.ip}]` : m.ip}:${m.port}`);
    if (members.length === 0) continue;
    const listen = new URL(g.gateway).host;
    lines.push(
      `run the gateway alone over the running proxies: ${self} gateway --members ${members.join(',')} --listen ${listen}`,
    );
  }
  return lines;
}

/** All Proxies Ready: says so, shows the curl line (through a pool's gateway when there is one), and with `check` tries it. */
export async function announceReady(s: UpSession, check: boolean): Promise<boolean> {
  const { sa, view, echo, display } = s;
  display.redraw();
  const records = sa.store.records().filter(notDeleting);
  const curl = records.map((r) => curlFor(r, echo?.url)).find((c) => c !== undefined);
  view.say(`all ${records.length} proxies are Ready.`, {
    type: 'ready',
    ready: true,
    proxies: records.length,
  });
  // One planning round first, so the gateway routes over every member that is Ready now.
  await sa.pools.step();
  const pool = sa.pools.views().find((p) => p.gateway);
  // From now on a member's cooldown (and its end) is a pool record, with `cooledDown` members.
  if (!s.watching)
    sa.pools.onMemberChange((c) =>
      view.say(
        `pool ${c.view.key}: member ${c.member} ${c.cooledDown ? `cooled down (${c.reason})` : 'back in rotation'}`,
        poolJson(c.view),
      ),
    );
  s.watching = true;
  if (pool?.gateway && echo) {
    const ok = await announcePool(view, { ...pool, gateway: pool.gateway }, echo.url, check);
    display.redraw();
    return ok;
  }
  if (curl) view.say(`try: ${curl.line}`, { type: 'curl', curl: curl.line });
  if (check && curl) {
    const r = await createHttpProbe({})(
      { host: curl.host, port: curl.port, target: curl.target, timeoutMs: 5000, retries: 2 },
      AbortSignal.timeout(20_000),
    );
    if (!r.ok) {
      view.say(`check failed: ${curl.line}: ${r.error}`, {
        type: 'check',
        ok: false,
        curl: curl.line,
        error: r.error,
      });
      return false;
    }
    view.say(`checked: ${curl.line} answered 200${r.egressIP ? `; the target saw ${r.egressIP}` : ''}`, {
      type: 'check',
      ok: true,
      curl: curl.line,
      ...(r.egressIP ? { egressIP: r.egressIP } : {}),
    });
  }
  display.redraw();
  return true;
}

/**
 * The pool's gateway as the demo shows it: the curl line through it, and with `check` three
 * requests that must leave from three members and one session that must stay on one.
 */
async function announcePool(
  view: StatusView,
  pool: PoolView & { gateway: string },
  target: string,
  check: boolean,
): Promise<boolean> {
  const line = `curl -x ${pool.gateway} ${target}`;
  const sessionLine = `curl -x ${pool.gateway.replace('://', '://demo-session-42:x@')} ${target}`;
  view.say(
    `pool ${pool.key}: ${pool.ready}/${pool.desired} Ready behind the gateway ${pool.gateway}`,
    poolJson(pool),
  );
  view.say(`try: ${line}`, { type: 'curl', curl: line });
  view.say(`try: ${sessionLine}   (a sticky session: the same member every time)`, {
    type: 'curl',
    curl: sessionLine,
  });
  if (!check) return true;
  try {
    const signal = AbortSignal.timeout(30_000);
    const n = Math.min(3, pool.ready);
    const spread = await egressThrough(pool.gateway, target, { count: n, signal });
    const sticky = await egressThrough(pool.gateway, target, { count: 3, session: '42', signal });
    if (new Set(spread).size !== n)
      throw new Error(`${n} requests left from ${spread.join(', ')}: not ${n} members`);
    if (new Set(sticky).size !== 1) throw new Error(`one session left from ${sticky.join(', ')}`);
    view.say(`checked: ${line} answered 200 ${n} times; the target saw ${spread.join(', ')}`, {
      type: 'check',
      check: 'ok',
      egressIPs: spread,
    });
    view.say(`checked: session 42 answered 200 3 times; the target saw ${sticky[0]} each time`, {
      type: 'check',
      check: 'ok',
      session: '42',
      egressIP: sticky[0],
    });
    return true;
  } catch (err) {
    const error = err instanceof Error ? err.message : String(err);
    view.say(`check failed: ${line}: ${error}`, { type: 'check', check: 'failed', error });
    return false;
  }
}
