// Hostwarden's web console: a read-only view of /ui/api (docs/console.md). A plain ES module with
// no framework and no build step: the page is a few tables, two forms and four small SVG charts,
// which the DOM API does in a few hundred lines. Every value is set with textContent or an
// attribute, never innerHTML, so record data (a TXT target, a reason) cannot inject markup; the
// Content-Security-Policy forbids inline script and style anyway.

// Relative to /ui/, so the page also works behind a proxy that mounts it under another prefix.
const API = 'api/';
const RECORD_LIMIT = 500;
const FILTER_DELAY_MS = 250;
const RECONNECT_MAX_MS = 30_000;
const OWNERSHIP_TEXT = { this: 'this instance', other: 'another owner', none: 'nobody' };

// ---- DOM helpers -------------------------------------------------------------------------------

/** Creates an element; attrs with value null/undefined/false are left out; children may be strings. */
function h(tag, attrs, ...children) {
  return build(document.createElement(tag), attrs, children);
}

function s(tag, attrs, ...children) {
  return build(document.createElementNS('http://www.w3.org/2000/svg', tag), attrs, children);
}

function build(el, attrs, children) {
  for (const [key, value] of Object.entries(attrs ?? {})) {
    if (value === null || value === undefined || value === false) continue;
    el.setAttribute(key, value === true ? '' : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(typeof child === 'string' || typeof child === 'number' ? String(child) : child);
  }
  return el;
}

function byId(id) {
  return document.getElementById(id);
}

// ---- formatting --------------------------------------------------------------------------------

function clockTime(ms) {
  return new Date(ms).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' });
}

/** "12 s ago", "in 3 min": the header is read at a glance; the exact time is in <time datetime>. */
function relative(ms, now) {
  const secs = Math.round((ms - now) / 1000);
  const abs = Math.abs(secs);
  const text = abs < 90 ? `${abs} s` : abs < 5400 ? `${Math.round(abs / 60)} min` : `${Math.round(abs / 3600)} h`;
  if (abs < 1) return 'now';
  return secs < 0 ? `${text} ago` : `in ${text}`;
}

function timeEl(ms, now) {
  if (ms === null || ms === undefined) return h('span', { class: 'muted' }, 'never');
  const iso = new Date(ms).toISOString();
  return h('time', { datetime: iso, title: iso }, `${clockTime(ms)} (${relative(ms, now)})`);
}

function dash(value) {
  return value === null || value === undefined || value === '' ? h('span', { class: 'muted' }, '—') : String(value);
}

function ttlText(ttl) {
  return ttl === null || ttl === undefined || ttl === 0 ? h('span', { class: 'muted' }, 'default') : String(ttl);
}

function targetList(targets) {
  if (targets === undefined || targets.length === 0) return h('span', { class: 'muted' }, 'none');
  return targets.map((t) => h('span', { class: 'target' }, t));
}

function nameCell(rec) {
  return h('td', { class: 'name' }, rec.name, rec.setIdentifier ? h('span', { class: 'muted' }, ` [${rec.setIdentifier}]`) : null);
}

function ownershipBadge(ownership) {
  return h('span', { class: `badge own-${ownership}` }, OWNERSHIP_TEXT[ownership] ?? ownership);
}

function actionBadge(action) {
  return h('span', { class: `badge act-${action}` }, action);
}

function count(n, word) {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** A table with a caption and column headers; `rows` are <tr> elements, `empty` a sentence. */
function table(caption, columns, rows, empty) {
  const body = rows.length > 0 ? rows : [h('tr', null, h('td', { colspan: columns.length, class: 'muted' }, empty))];
  return h(
    'div',
    { class: 'scroll' },
    h(
      'table',
      null,
      h('caption', null, caption),
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          columns.map((c) => h('th', { scope: 'col' }, c)),
        ),
      ),
      h('tbody', null, body),
    ),
  );
}

async function getJson(path, signal) {
  const res = await fetch(API + path, { signal, headers: { accept: 'application/json' } });
  const body = await res.json().catch(() => null);
  if (!res.ok) throw new Error(body && typeof body.error === 'string' ? body.error : `${res.status} ${res.statusText}`);
  return body;
}

// ---- header: instance and sync ----------------------------------------------------------------

function facts(dl, pairs) {
  // A <div> per pair (allowed in a <dl>) keeps a term on the line of its value when the header wraps.
  dl.replaceChildren(...pairs.filter((p) => p !== null).map(([term, value]) => h('div', null, h('dt', null, term), h('dd', null, value))));
}

function renderInstance(instance) {
  facts(byId('instance'), [
    ['Owner id', h('code', null, instance.ownerId)],
    ['Provider', instance.provider],
    ['Sources', instance.sources.join(', ') || '—'],
    ['Policy', instance.policy],
    ['Registry', instance.registry],
    instance.dryRun ? ['Mode', h('strong', null, 'dry run')] : null,
    ['Version', instance.version],
  ]);
}

/** Why this replica applies nothing: a dry run, or another replica leads. */
function notApplyingReason(state) {
  return state.instance.dryRun ? 'dry run' : 'not the leader';
}

function applyingText(state) {
  return state.sync.applying ? 'yes' : `no: ${notApplyingReason(state)}`;
}

function renderSync(state, now) {
  const sync = state.sync;
  facts(byId('sync'), [
    ['Last sync', timeEl(sync.lastAttemptAt, now)],
    ['Outcome', h('span', { class: `badge out-${sync.outcome}` }, sync.outcome === 'none' ? 'no sync yet' : sync.outcome)],
    sync.outcome === 'failed' ? ['Last success', timeEl(sync.lastSuccessAt, now)] : null,
    ['Next sync', timeEl(sync.nextAt, now)],
    sync.consecutiveFailures > 0 ? ['Failures in a row', String(sync.consecutiveFailures)] : null,
    ['Applies changes', applyingText(state)],
  ]);
  const error = byId('sync-error');
  error.hidden = sync.error === null || sync.error === '';
  error.textContent = sync.error === null ? '' : `Last sync failed: ${sync.error}`;
}

// ---- records -------------------------------------------------------------------------------------

function recordRow(rec) {
  return h(
    'tr',
    { class: `own-row-${rec.ownership}` },
    nameCell(rec),
    h('td', null, rec.type),
    h('td', { class: 'targets' }, targetList(rec.targets)),
    h('td', { class: 'num' }, ttlText(rec.ttl)),
    h('td', null, ownershipBadge(rec.ownership)),
    h('td', null, dash(rec.owner)),
    h('td', null, dash(rec.resource)),
  );
}

function renderRecords(result, filtered) {
  const tbody = byId('records-table').tBodies[0];
  const rows = result.records.map(recordRow);
  if (rows.length === 0) {
    const text = filtered ? 'No record matches the filter.' : 'The provider holds no records (or no sync has finished yet).';
    rows.push(h('tr', null, h('td', { colspan: 7, class: 'muted' }, text)));
  }
  tbody.replaceChildren(...rows);
  const shown = result.records.length;
  const of = result.total > shown ? `, first ${shown} of ${result.total}: narrow the filter to see the rest` : '';
  byId('records-caption').textContent = `Records the provider holds: ${count(result.total, 'record')}${filtered ? ' matching the filter' : ''}${of}`;
}

function recordQuery(form) {
  const params = new URLSearchParams();
  for (const [key, value] of new FormData(form)) if (String(value).trim() !== '') params.set(key, String(value).trim());
  const filtered = [...params.keys()].length > 0;
  params.set('limit', String(RECORD_LIMIT));
  return { query: params.toString(), filtered };
}

// ---- next sync (plan) --------------------------------------------------------------------------

function changeCount(plan) {
  return plan.creates.length + plan.updates.length + plan.deletes.length;
}

/** Tables of one change set; `words` name its three parts ("To create" or "Created"). */
function changeTables(plan, words) {
  const parts = [];
  if (plan.creates.length > 0) parts.push(planTable(words[0], plan.creates));
  if (plan.updates.length > 0) parts.push(updateTable(words[1], plan.updates));
  if (plan.deletes.length > 0) parts.push(planTable(words[2], plan.deletes));
  return parts;
}

function renderPlan(state) {
  const { creates, updates, deletes } = state.plan;
  const who = state.sync.applying ? '' : ` This instance applies nothing (${notApplyingReason(state)}): this is what it would do.`;
  byId('plan-summary').textContent =
    (state.sync.outcome === 'none'
      ? 'No sync has finished yet.'
      : changeCount(state.plan) === 0
        ? 'No changes pending: the provider holds what the sources ask for.'
        : `Pending: ${creates.length} to create, ${updates.length} to update, ${deletes.length} to delete.`) + who;
  const parts = changeTables(state.plan, ['To create', 'To update, field by field', 'To delete']);
  // The backend also reports what the last sync applied (`lastApplied`, null when it applied nothing).
  const applied = state.lastApplied;
  if (applied && changeCount(applied) > 0) {
    parts.push(
      h('h3', null, `Applied by the last sync: ${applied.creates.length} created, ${applied.updates.length} updated, ${applied.deletes.length} deleted`),
      ...changeTables(applied, ['Created by the last sync', 'Updated by the last sync, field by field', 'Deleted by the last sync']),
    );
  }
  byId('plan-body').replaceChildren(...parts);
}

function planTable(caption, recs) {
  const rows = recs.map((r) =>
    h(
      'tr',
      null,
      nameCell(r),
      h('td', null, r.type),
      h('td', { class: 'targets' }, targetList(r.targets)),
      h('td', { class: 'num' }, ttlText(r.ttl)),
      h('td', null, dash(r.owner)),
      h('td', null, dash(r.resource)),
    ),
  );
  return table(caption, ['Name', 'Type', 'Targets', 'TTL', 'Owner id', 'Source object'], rows, '');
}

function updateTable(caption, updates) {
  const rows = updates.flatMap((u) => {
    const fields = u.fields.length > 0 ? u.fields : [{ field: '(labels)', old: '', new: '' }];
    return fields.map((f) =>
      h(
        'tr',
        null,
        nameCell(u.new),
        h('td', null, u.new.type),
        h('td', null, f.field),
        h('td', { class: 'diff' }, h('del', null, f.old)),
        h('td', { class: 'diff' }, h('ins', null, f.new)),
        h('td', null, dash(u.new.resource)),
      ),
    );
  });
  return table(caption, ['Name', 'Type', 'Field', 'Old value', 'New value', 'Source object'], rows, '');
}

// ---- explain -------------------------------------------------------------------------------------

function decisionRow(d) {
  const reason = d.fields && d.fields.length > 0 ? `${d.reason} (${d.fields.join(', ')})` : d.reason;
  const type = d.setIdentifier ? `${d.recordType} [${d.setIdentifier}]` : d.recordType;
  return h(
    'tr',
    null,
    h('td', null, actionBadge(d.action)),
    h('td', null, type),
    h('td', null, dash(d.resource)),
    h('td', null, dash(d.owner)),
    h('td', { class: 'reason' }, reason),
  );
}

function renderExplanation(result) {
  const parts = [h('h3', null, result.name)];
  if (result.decisions.length === 0 && result.problems.length === 0) {
    parts.push(h('p', null, 'Nothing: no source asks for this name and the provider holds no record there.'));
  }
  if (result.decisions.length > 0) {
    parts.push(table(`Decisions for ${result.name}`, ['Action', 'Type', 'Source object', 'Owner id', 'Reason'], result.decisions.map(decisionRow), ''));
  }
  if (result.problems.length > 0) {
    parts.push(
      h('h4', null, 'Invalid input'),
      h(
        'ul',
        { class: 'problems' },
        result.problems.map((p) => h('li', null, `skip: invalid input: ${p}`)),
      ),
    );
  }
  byId('explain-result').replaceChildren(...parts);
}

function renderExplainError(name, message) {
  byId('explain-result').replaceChildren(h('p', { class: 'error', role: 'alert' }, `Cannot explain "${name}": ${message}`));
}

// ---- source objects ------------------------------------------------------------------------------

function renderSources(result) {
  const body = byId('sources-body');
  if (result.objects.length === 0) {
    body.replaceChildren(h('p', { class: 'muted' }, 'No source object asks for records.'));
    return;
  }
  const groups = result.objects.map((obj) =>
    h(
      'tbody',
      null,
      h('tr', { class: 'group' }, h('th', { scope: 'rowgroup', colspan: 5 }, obj.resource)),
      obj.records.map((r) =>
        h(
          'tr',
          null,
          h('td', { class: 'name' }, r.name),
          h('td', null, r.type),
          h('td', { class: 'targets' }, targetList(r.targets)),
          h('td', null, actionBadge(r.action)),
          h('td', { class: 'reason' }, r.reason),
        ),
      ),
    ),
  );
  const columns = ['Name', 'Type', 'Targets', 'Outcome', 'Reason'];
  body.replaceChildren(
    h(
      'div',
      { class: 'scroll' },
      h(
        'table',
        null,
        h('caption', null, `What each source object asked for and what became of it (${count(result.objects.length, 'object')})`),
        h(
          'thead',
          null,
          h(
            'tr',
            null,
            columns.map((c) => h('th', { scope: 'col' }, c)),
          ),
        ),
        groups,
      ),
    ),
  );
}

// ---- health charts -------------------------------------------------------------------------------

const CHARTS = [
  { key: 'syncs', title: 'Syncs', unit: 'per 10 s', total: true },
  { key: 'changes', title: 'Changes applied', unit: 'per 10 s', total: true },
  { key: 'errors', title: 'Sync errors', unit: 'per 10 s', total: true },
  { key: 'dnsQueries', title: 'DNS queries', unit: 'per second', total: false },
];

function round(n) {
  return n >= 100 ? String(Math.round(n)) : String(Math.round(n * 10) / 10);
}

/** The text alternative: what a reader of the chart would take from it. */
function chartSummary(spec, values) {
  const peak = Math.max(0, ...values);
  const latest = values.length > 0 ? values[values.length - 1] : 0;
  if (spec.total) return `${round(values.reduce((a, b) => a + b, 0))} in the last hour; peak ${round(peak)} ${spec.unit}; latest ${round(latest)}.`;
  const avg = values.length > 0 ? values.reduce((a, b) => a + b, 0) / values.length : 0;
  return `Average ${round(avg)} ${spec.unit} over the last hour; peak ${round(peak)}; latest ${round(latest)}.`;
}

/** One bar per 10 s step, scaled to the hour's peak; a path, not 360 elements. */
function barsPath(values, width, height) {
  const peak = Math.max(...values);
  if (!(peak > 0)) return '';
  const step = width / values.length;
  let d = '';
  values.forEach((v, i) => {
    if (v > 0) d += `M${(i * step).toFixed(2)} ${height}V${(height - (v / peak) * height).toFixed(2)}h${step.toFixed(2)}V${height}z`;
  });
  return d;
}

function chart(spec, history) {
  const id = `chart-${spec.key}`;
  const values = history.series[spec.key];
  const head = h('figcaption', null, h('strong', null, spec.title), ` ${spec.unit}`);
  if (values === null || values === undefined) {
    return h('figure', { class: 'chart', id }, head, h('p', { class: 'muted' }, 'Not available: only the embedded provider serves DNS.'));
  }
  const width = 360;
  const height = 60;
  const summary = chartSummary(spec, values);
  const graphic = s(
    'svg',
    { viewBox: `0 0 ${width} ${height}`, preserveAspectRatio: 'none', role: 'img', 'aria-labelledby': `${id}-text` },
    s('line', { class: 'axis', x1: 0, y1: height - 0.5, x2: width, y2: height - 0.5 }),
    s('path', { class: `bars bars-${spec.key}`, d: barsPath(values, width, height) }),
  );
  const span = Math.round((values.length * history.stepSeconds) / 60);
  return h(
    'figure',
    { class: 'chart', id },
    head,
    graphic,
    h(
      'div',
      { class: 'axis-labels', 'aria-hidden': 'true' },
      h('span', null, `−${span} min`),
      h('span', null, `peak ${round(Math.max(0, ...values))}`),
      h('span', null, 'now'),
    ),
    h('p', { class: 'summary', id: `${id}-text` }, `${spec.title}: ${summary}`),
  );
}

function renderHistory(history) {
  byId('charts').replaceChildren(...CHARTS.map((spec) => chart(spec, history)));
}

// ---- the console: state, fetching and live updates ------------------------------------------------

/** One request of a kind at a time; a request asked for meanwhile runs once, after it. */
function serial(run) {
  let running = false;
  let again = false;
  const go = async () => {
    if (running) {
      again = true;
      return;
    }
    running = true;
    try {
      do {
        again = false;
        await run();
      } while (again);
    } finally {
      running = false;
    }
  };
  return () => void go();
}

function setLive(status, text) {
  const el = byId('live');
  if (el.dataset.state === status) return;
  el.dataset.state = status;
  el.textContent = text;
}

function createConsole() {
  const view = { state: null, explainName: '', shownExplain: '', filterTimer: 0, retryMs: 1000 };
  const form = byId('record-filter');

  const loadRecords = serial(async () => {
    const { query, filtered } = recordQuery(form);
    try {
      renderRecords(await getJson(`records?${query}`), filtered);
    } catch (err) {
      byId('records-caption').textContent = `Records could not be loaded: ${err.message}`;
    }
  });
  const loadSources = serial(async () => {
    try {
      renderSources(await getJson('sources'));
    } catch (err) {
      byId('sources-body').replaceChildren(h('p', { class: 'error' }, `Source objects could not be loaded: ${err.message}`));
    }
  });
  // Asked again after every sync; an unchanged answer is not rendered again, so a screen reader
  // does not hear the live region repeat it.
  const loadExplain = serial(async () => {
    const name = view.explainName;
    if (name === '') return;
    let render;
    try {
      const result = await getJson(`explain?name=${encodeURIComponent(name)}`);
      render = [JSON.stringify(result), () => renderExplanation(result)];
    } catch (err) {
      render = [`error ${name} ${err.message}`, () => renderExplainError(name, err.message)];
    }
    if (render[0] === view.shownExplain) return;
    view.shownExplain = render[0];
    render[1]();
  });
  const loadHistory = serial(async () => {
    try {
      renderHistory(await getJson('history'));
    } catch (err) {
      byId('charts').replaceChildren(h('p', { class: 'error' }, `History could not be loaded: ${err.message}`));
    }
  });

  const onState = (state) => {
    view.state = state;
    renderInstance(state.instance);
    renderSync(state, Date.now());
    byId('zones').textContent = state.zones.length > 0 ? `Zones: ${state.zones.join(', ')}` : 'No zones.';
    renderPlan(state);
    loadRecords();
    loadSources();
    loadExplain();
  };

  const connect = () => {
    const es = new EventSource(`${API}events`);
    es.addEventListener('open', () => {
      view.retryMs = 1000;
      setLive('live', 'live');
    });
    es.addEventListener('state', (ev) => {
      setLive('live', 'live');
      onState(JSON.parse(ev.data));
    });
    es.addEventListener('history', (ev) => renderHistory(JSON.parse(ev.data)));
    es.addEventListener('error', () => {
      setLive('reconnecting', 'reconnecting');
      // The browser retries a dropped stream by itself; a refused one (503, wrong type) is closed.
      if (es.readyState === EventSource.CLOSED) {
        setTimeout(connect, view.retryMs);
        view.retryMs = Math.min(view.retryMs * 2, RECONNECT_MAX_MS);
      }
    });
  };

  form.addEventListener('input', () => {
    clearTimeout(view.filterTimer);
    view.filterTimer = setTimeout(loadRecords, FILTER_DELAY_MS);
  });
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    clearTimeout(view.filterTimer);
    loadRecords();
  });
  byId('explain-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    view.explainName = byId('explain-name').value.trim();
    view.shownExplain = '';
    loadExplain();
  });
  // The relative times in the header ("12 s ago") age without a new event.
  setInterval(() => view.state !== null && renderSync(view.state, Date.now()), 1000);

  loadHistory();
  connect();
}

createConsole();
