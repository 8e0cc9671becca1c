/**
 * The status page: one HTML document, its style and script inline, no framework. The script
 * reads `/api/events` (server-sent events, each the whole data) and rebuilds the tables with
 * DOM calls and textContent only, so nothing a member reports is ever parsed as HTML. Each
 * table has a caption and column headers; on a narrow screen every row becomes a block of
 * labelled cells.
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
  table { border-collapse: collapse; width: 100%; }
  caption { text-align: left; padding: .25rem 0; color: #444; }
  th, td { text-align: left; padding: .3rem .5rem; border-bottom: 1px solid #ddd; }
  th { background: #f3f3f3; }
  td.yes { color: #075e00; } td.no { color: #a00; }
  #live { color: #555; }
  @media (max-width: 640px) {
    thead { position: absolute; left: -9999px; }
    tr { display: block; border: 1px solid #ddd; margin-bottom: .5rem; }
    td { display: flex; justify-content: space-between; gap: 1rem; border: 0; overflow-wrap: anywhere; }
    td::before { content: attr(data-label); font-weight: 600; }
  }
</style>
</head>
<body>
<header>
<h1>egress-proxies status</h1>
<p id="live" role="status" aria-live="polite">connecting…</p>
</header>
<main id="pools"></main>
<script>
const COLUMNS = [
  ['name', 'Member'], ['provider', 'Provider'], ['address', 'Address'],
  ['assignedEgress', 'Assigned egress'], ['seenEgress', 'Seen egress'],
  ['ready', 'Ready'], ['cooldown', 'Cooled down until'],
];
function el(tag, text, attrs) {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  return e;
}
function cell(m, key) {
  if (key === 'ready') return m.ready ? 'yes' : 'no';
  if (key === 'cooldown') return m.cooledDown ? (m.cooledDownUntil ? new Date(m.cooledDownUntil).toLocaleTimeString() : 'yes') : '-';
  return m[key] || '-';
}
function render(data) {
  const main = document.getElementById('pools');
  const sections = data.pools.map((p) => {
    const s = el('section', undefined, { 'aria-labelledby': 'pool-' + p.pool });
    s.append(el('h2', 'Pool ' + p.pool, { id: 'pool-' + p.pool }));
    s.append(el('p', p.ready + ' of ' + p.desired + ' Ready; gateway ' + (p.gateway || 'not running'), { 'data-pool-summary': p.pool }));
    if (p.autoscale) {
      const a = p.autoscale;
      s.append(el('p', 'Autoscale ' + a.reason + ': ' + p.desired + ' wanted within ' + a.min + '..' + a.max + '. ' + a.message, { 'data-pool-scaling': p.pool }));
    }
    const t = el('table', undefined, { 'data-pool': p.pool });
    t.append(el('caption', 'Members of pool ' + p.pool));
    const head = el('tr');
    for (const [, label] of COLUMNS) head.append(el('th', label, { scope: 'col' }));
    const thead = el('thead');
    thead.append(head);
    t.append(thead);
    const body = el('tbody');
    for (const m of p.members) {
      const tr = el('tr', undefined, { 'data-member': m.name });
      for (const [key, label] of COLUMNS) {
        const v = cell(m, key);
        const td = el(key === 'name' ? 'th' : 'td', v, { 'data-label': label, 'data-key': key });
        if (key === 'name') td.setAttribute('scope', 'row');
        if (key === 'ready') td.className = m.ready ? 'yes' : 'no';
        tr.append(td);
      }
      body.append(tr);
    }
    t.append(body);
    s.append(t);
    return s;
  });
  if (sections.length === 0) sections.push(el('p', 'No pools.'));
  main.replaceChildren(...sections);
  document.getElementById('live').textContent = 'live; updated ' + new Date(data.updatedAt).toLocaleTimeString();
}
const events = new EventSource('api/events');
events.onmessage = (e) => render(JSON.parse(e.data));
events.onerror = () => { document.getElementById('live').textContent = 'disconnected; retrying…'; };
</script>
</body>
</html>
`;
