/**
 * The status page: one HTML document, its style and script inline, no framework. The script
 * reads `/api/events` (server-sent events, each the whole data) and applies each to the tables
 * with DOM calls and textContent only, so nothing a member reports is ever parsed as HTML. A
 * member's row is kept between updates and only rewritten when that member changed, so an update
 * to one member of 1,000 costs one row, not a table. Each table has a caption and column headers;
 * on a narrow screen every row becomes a block of labelled cells. Each update's cost is left in
 * the page's performance timeline (measures `status-page-apply`: the DOM work; and
 * `status-page-frame`: until the frame after it), for the benchmark to read. Served behind
 * authentication (the operator in a cluster), it asks for a bearer token, keeps it for the tab
 * only (sessionStorage) and reads the stream with fetch, since EventSource sends no header.
 */
export const STATUS_PAGE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>egress-proxies status</title>
<style>
  body { font: 14px/1.4 system-ui, sans-serif; margin: 1rem; color: #111; background: #fff; }
  h1 { font-size: 1.3rem; margin: 0 0 .5rem; }
  h2 { font-size: 1.1rem; margin: 1.5rem 0 .25rem; }
  p { margin: .25rem 0; }
  .scroll { overflow-x: auto; }
  table { border-collapse: collapse; width: 100%; }
  caption { text-align: left; padding: .25rem 0; color: #444; }
  th, td { text-align: left; padding: .3rem .4rem; border-bottom: 1px solid #ddd; vertical-align: top; }
  tbody th, td.nowrap { white-space: nowrap; }
  thead th { background: #f3f3f3; }
  td.num { text-align: right; font-variant-numeric: tabular-nums; }
  .yes { color: #075e00; } .no, .Warning { color: #a00; } .draining { color: #7a4d00; }
  #live { color: #555; }
  /*
   * A members table is laid out from its column widths, not its cells: with automatic layout a
   * changed cell makes the browser measure all 1,000 rows again before the next frame.
   */
  @media (min-width: 641px) {
    table.members { table-layout: fixed; }
    table.members td, table.members tbody th { overflow-wrap: anywhere; white-space: normal; }
  }
  @media (max-width: 640px) {
    thead { position: absolute; left: -9999px; }
    tr { display: block; border: 1px solid #ddd; margin-bottom: .5rem; }
    th, td, td.num { display: flex; justify-content: space-between; gap: 1rem; border: 0; overflow-wrap: anywhere; text-align: right; }
    tbody th, td.nowrap { white-space: normal; }
    /* The columns' shares are for a wide screen: here each row is a block as wide as the screen. */
    table.members col { width: auto !important; }
    th::before, td::before { content: attr(data-label); font-weight: 600; text-align: left; white-space: nowrap; flex-shrink: 0; color: #111; }
  }
</style>
</head>
<body>
<header>
<h1>egress-proxies status</h1>
<p id="live" role="status" aria-live="polite">connecting…</p>
</header>
<main>
<form id="signin" hidden>
<h2>Sign in</h2>
<p id="signin-why" role="alert"></p>
<label for="token">Bearer token (for example from <code>kubectl create token</code>)</label>
<input id="token" name="token" type="password" autocomplete="off" required>
<button type="submit">Show the status</button>
</form>
<div id="pools"></div>
<section id="providers" aria-labelledby="providers-title" hidden>
<h2 id="providers-title">Providers' health</h2>
<div class="scroll" role="region" tabindex="0" aria-label="Providers' health"><table>
<caption>Each provider's health targets, as its last check saw them</caption>
<thead><tr><th scope="col">Provider</th><th scope="col">Target</th><th scope="col">Ready</th><th scope="col">Reason</th><th scope="col">Message</th><th scope="col">Last check</th></tr></thead>
<tbody></tbody>
</table></div>
</section>
<section id="events" aria-labelledby="events-title" hidden>
<h2 id="events-title">Recent events</h2>
<div class="scroll" role="region" tabindex="0" aria-label="Recent events"><table>
<caption>Newest first</caption>
<thead><tr><th scope="col">Time</th><th scope="col">Type</th><th scope="col">Subject</th><th scope="col">Reason</th><th scope="col">Error class</th><th scope="col">Message</th></tr></thead>
<tbody></tbody>
</table></div>
</section>
</main>
<script>
// Each column: its key, its header and its share of a wide screen's width (percent).
const MEMBER_COLUMNS = [
  ['name', 'Member', 11.5], ['provider', 'Provider', 7], ['zone', 'Zone', 8], ['address', 'Address', 12.5],
  ['assignedEgress', 'Assigned egress', 9.5], ['seenEgress', 'Seen egress', 9], ['age', 'Age', 5.5],
  // Wider than "yes" needs: "draining since" and a time wrap within it (four lines at 1100 px).
  ['ready', 'Ready', 7.5], ['cooldown', 'Cooled down until', 8.5], ['requests', 'Requests', 8],
  ['bytes', 'Bytes', 7], ['errors', 'Errors', 6],
];
const NUMERIC = new Set(['requests', 'bytes', 'errors']);
const NOWRAP = new Set(['address', 'age', 'cooldown', 'requests', 'bytes']);
function el(tag, text, attrs) {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  return e;
}
function time(iso) { return iso ? new Date(iso).toLocaleTimeString() : '-'; }
function age(iso) {
  if (!iso) return '-';
  const s = Math.max(0, Math.floor((Date.now() - Date.parse(iso)) / 1000));
  if (s < 60) return s + ' s';
  if (s < 3600) return Math.floor(s / 60) + ' min';
  if (s < 86400) return Math.floor(s / 3600) + ' h ' + (Math.floor(s / 60) % 60) + ' min';
  return Math.floor(s / 86400) + ' d ' + (Math.floor(s / 3600) % 24) + ' h';
}
function bytes(n) {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0;
  while (n >= 1024 && i < units.length - 1) { n /= 1024; i++; }
  return (i === 0 ? String(n) : n.toFixed(1)) + ' ' + units[i];
}
/** A member cell's text, and its raw number for the numeric ones (kept in data-value). */
function cell(m, key) {
  const t = m.traffic;
  switch (key) {
    // A draining member takes no new requests, Ready or not: that is what the column says then.
    case 'ready': return [m.drainingSince ? 'draining since ' + time(m.drainingSince) : m.ready ? 'yes' : 'no'];
    case 'cooldown': return [m.cooledDown ? (m.cooledDownUntil ? time(m.cooledDownUntil) : 'yes') : '-'];
    case 'age': return [age(m.createdAt)];
    // The rate beside the count, while there is one.
    case 'requests': return t ? [t.requests.toLocaleString() + (t.requestsPerSecond ? ' (' + t.requestsPerSecond + '/s)' : ''), t.requests] : ['-'];
    case 'bytes': return t ? [bytes(t.bytes), t.bytes] : ['-'];
    case 'errors': return t ? [t.errors.toLocaleString(), t.errors] : ['-'];
    default: return [m[key] || '-'];
  }
}
function setCell(td, [text, value]) {
  if (td.textContent !== text) td.textContent = text;
  if (value !== undefined && td.getAttribute('data-value') !== String(value)) td.setAttribute('data-value', String(value));
}

/** Per pool: its section and, per member, its row and the JSON it was last drawn from. */
const pools = new Map();
function poolView(p) {
  const s = el('section', undefined, { 'aria-labelledby': 'pool-' + p.pool });
  s.append(el('h2', 'Pool ' + p.pool, { id: 'pool-' + p.pool }));
  const summary = el('p', undefined, { 'data-pool-summary': p.pool });
  const scaling = el('p', undefined, { 'data-pool-scaling': p.pool });
  const t = el('table', undefined, { 'data-pool': p.pool, class: 'members' });
  t.append(el('caption', 'Members of pool ' + p.pool));
  const cols = el('colgroup');
  for (const [, , width] of MEMBER_COLUMNS) cols.append(el('col', undefined, { style: 'width: ' + width + '%' }));
  t.append(cols);
  const head = el('tr');
  for (const [, label] of MEMBER_COLUMNS) head.append(el('th', label, { scope: 'col' }));
  const thead = el('thead');
  thead.append(head);
  const tbody = el('tbody');
  t.append(thead, tbody);
  // Wider than the screen, the table scrolls in its own region, which the keyboard can reach.
  const scroll = el('div', undefined, { class: 'scroll', role: 'region', tabindex: '0', 'aria-label': 'Members of pool ' + p.pool });
  scroll.append(t);
  s.append(summary, scaling, scroll);
  return { section: s, summary, scaling, tbody, rows: new Map(), key: '' };
}
function memberRow(name) {
  const tr = el('tr', undefined, { 'data-member': name });
  const cells = {};
  for (const [key, label] of MEMBER_COLUMNS) {
    const td = el(key === 'name' ? 'th' : 'td', undefined, { 'data-label': label, 'data-key': key });
    if (key === 'name') td.setAttribute('scope', 'row');
    if (NUMERIC.has(key) || NOWRAP.has(key)) td.className = (NUMERIC.has(key) ? 'num ' : '') + (NOWRAP.has(key) ? 'nowrap' : '');
    cells[key] = td;
    tr.append(td);
  }
  return { tr, cells, key: '', member: undefined };
}
function drawRow(r, m) {
  for (const [key] of MEMBER_COLUMNS) setCell(r.cells[key], cell(m, key));
  r.cells.ready.className = m.drainingSince ? 'draining' : m.ready ? 'yes' : 'no';
}
function updatePool(v, p) {
  const summary = p.ready + ' of ' + p.desired + ' Ready; gateway ' + (p.gateway || 'not running');
  if (v.summary.textContent !== summary) v.summary.textContent = summary;
  const a = p.autoscale;
  const scaling = a ? 'Autoscale ' + a.reason + ': ' + p.desired + ' wanted within ' + a.min + '..' + a.max + '. ' + a.message : '';
  if (v.scaling.textContent !== scaling) v.scaling.textContent = scaling;
  v.scaling.hidden = !a;
  const names = new Set(p.members.map((m) => m.name));
  for (const [name, r] of v.rows) if (!names.has(name)) { r.tr.remove(); v.rows.delete(name); }
  // In the data's order; a row already in place is not moved.
  let at = v.tbody.firstChild;
  for (const m of p.members) {
    let r = v.rows.get(m.name);
    if (!r) { r = memberRow(m.name); v.rows.set(m.name, r); }
    // A patch keeps the members that did not change (the same objects): those are not compared.
    if (r.member !== m) {
      const key = JSON.stringify(m);
      if (r.key !== key) { r.key = key; drawRow(r, m); }
      r.member = m;
    }
    if (r.tr === at) at = at.nextSibling;
    else v.tbody.insertBefore(r.tr, at);
  }
}
function renderPools(list) {
  const main = document.getElementById('pools');
  const seen = new Set();
  let at = main.firstChild;
  for (const p of list) {
    seen.add(p.pool);
    let v = pools.get(p.pool);
    if (!v) { v = poolView(p); pools.set(p.pool, v); }
    updatePool(v, p);
    if (v.section === at) at = at.nextSibling;
    else main.insertBefore(v.section, at);
  }
  for (const [name, v] of pools) if (!seen.has(name)) { v.section.remove(); pools.delete(name); }
  let none = document.getElementById('no-pools');
  if (list.length === 0 && !none) main.append(el('p', 'No pools.', { id: 'no-pools' }));
  if (list.length > 0 && none) none.remove();
}
/** Rebuilds a small table (providers, events) when its data changed (a patch without it keeps the same list). */
const drawn = {};
function renderRows(id, list, rowsOf, rowOf) {
  if (drawn[id] === list) return;
  drawn[id] = list;
  const items = rowsOf(list);
  const section = document.getElementById(id);
  section.hidden = items.length === 0;
  section.querySelector('tbody').replaceChildren(...items.map(rowOf));
}
const NONE = [];
function row(cells, attrs) {
  const tr = el('tr', undefined, attrs);
  cells.forEach(([label, text, cls], i) => {
    const c = el(i === 0 ? 'th' : 'td', text || '-', { 'data-label': label });
    if (i === 0) c.setAttribute('scope', 'row');
    if (cls) c.className = cls;
    tr.append(c);
  });
  return tr;
}
function providerRows(providers) {
  return providers.flatMap((p) => {
    const targets = p.targets.length ? p.targets : [{ target: '-', ready: p.ready, reason: '', message: p.message, lastCheckTime: p.lastCheckTime }];
    return targets.map((t) => ({ p, t }));
  });
}
function render(data) {
  renderPools(data.pools);
  renderRows('providers', data.providers || NONE, (p) => providerRows(p), ({ p, t }) => {
    const ready = t.ready === undefined ? '-' : t.ready ? 'yes' : 'no';
    return row([['Provider', p.name + (p.type && p.type !== p.name ? ' (' + p.type + ')' : '')], ['Target', t.target], ['Ready', ready, t.ready ? 'yes' : 'no'],
      ['Reason', t.reason], ['Message', t.message], ['Last check', time(t.lastCheckTime)]], { 'data-provider': p.name });
  });
  renderRows('events', data.events || NONE, (events) => events.slice().reverse(), (e) =>
    row([['Time', time(e.time)], ['Type', e.type, e.type], ['Subject', e.subject], ['Reason', e.reason],
      ['Error class', e.errorClass], ['Message', e.message]], { 'data-event-reason': e.reason, 'data-event-subject': e.subject }));
  document.getElementById('live').textContent = 'live; updated ' + time(data.updatedAt);
  performance.measure('status-page-apply', 'status-page-update');
  // After the frame that shows it: style, layout and paint included.
  requestAnimationFrame(() => setTimeout(() => performance.measure('status-page-frame', 'status-page-update')));
}
// Ages move without an update: their cells are refreshed every few seconds.
setInterval(() => {
  for (const v of pools.values()) for (const r of v.rows.values()) if (r.member) setCell(r.cells.age, cell(r.member, 'age'));
}, 5000);
/** The data now: the whole of it comes first, then patches of what changed. */
let state;
function patched(data, patch) {
  const before = new Map(data.pools.map((p) => [p.pool, p]));
  const pools = patch.pools.map((head) => {
    const rows = new Map((before.get(head.pool)?.members || []).map((m) => [m.name, m]));
    for (const n of head.removed || []) rows.delete(n);
    for (const m of head.members || []) rows.set(m.name, m);
    const names = head.order || [...rows.keys()];
    const p = { ...head, members: names.map((n) => rows.get(n)) };
    delete p.removed; delete p.order;
    return p;
  });
  return { updatedAt: patch.updatedAt, pools, providers: patch.providers || data.providers, events: patch.events || data.events };
}
function onWhole(text) {
  // Parsing included: it is part of what an update costs the page.
  performance.mark('status-page-update');
  state = JSON.parse(text);
  render(state);
}
function onPatch(text) {
  performance.mark('status-page-update');
  state = patched(state, JSON.parse(text));
  render(state);
}
const live = document.getElementById('live');
const signin = document.getElementById('signin');
// A page served behind authentication (the operator in a cluster) asks for a bearer token and
// keeps it for this tab only; EventSource cannot send a header, so the stream is read by fetch.
let token = sessionStorage.getItem('egress-proxies-token') || '';
function askForToken(why) {
  live.textContent = 'sign in to see the status';
  document.getElementById('signin-why').textContent = why;
  signin.hidden = false;
  document.getElementById('token').focus();
}
signin.addEventListener('submit', (e) => {
  e.preventDefault();
  token = document.getElementById('token').value.trim();
  sessionStorage.setItem('egress-proxies-token', token);
  signin.hidden = true;
  document.getElementById('signin-why').textContent = '';
  connect();
});
async function connect() {
  let res;
  try {
    res = await fetch('api/events', { headers: token ? { authorization: 'Bearer ' + token } : {}, cache: 'no-store' });
  } catch {
    live.textContent = 'disconnected; retrying…';
    return void setTimeout(connect, 2000);
  }
  if (res.status === 401 || res.status === 403) {
    sessionStorage.removeItem('egress-proxies-token');
    return askForToken(token ? (res.status === 403 ? 'That token may not read this page.' : 'That token was refused.') : 'This page needs a bearer token.');
  }
  if (!res.ok || !res.body) {
    live.textContent = 'disconnected (' + res.status + '); retrying…';
    return void setTimeout(connect, 2000);
  }
  // Server-sent events: blocks end with a blank line; an "event:" line names a patch.
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffered += value;
      let end;
      while ((end = buffered.indexOf('\\n\\n')) >= 0) {
        const block = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        let kind = 'message';
        const data = [];
        for (const line of block.split('\\n')) {
          if (line.startsWith('event:')) kind = line.slice(6).trim();
          else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
        }
        if (data.length) (kind === 'patch' ? onPatch : onWhole)(data.join('\\n'));
      }
    }
  } catch {}
  live.textContent = 'disconnected; retrying…';
  setTimeout(connect, 2000);
}
connect();
</script>
</body>
</html>
`;
