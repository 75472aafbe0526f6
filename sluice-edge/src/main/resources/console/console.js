// The Sluice web console. Static, no network fetch but this node's /v1 admin routes.
// Every piece of data is put in the page with textContent, never as markup.
(function () {
  'use strict';

  var TOKEN_KEY = 'sluice.adminToken';
  var PAGES = ['overview', 'tenants', 'sources', 'hooks', 'destinations', 'dead-letters', 'audit'];
  var SERIES = [
    ['accepted', '#067647'], ['duplicate', '#1f6feb'], ['verification_failed', '#b42318'],
    ['refused_ip', '#f79009'], ['refused_node', '#9e77ed'], ['refused_source', '#0e9384'],
    ['refused_tenant', '#dd2590'], ['refused_tenant_bytes', '#7a5af8'],
    ['refused_tenant_overload', '#e04f16'], ['refused_tenant_storage', '#b54708'],
    ['refused_overload', '#344054']
  ];
  var HOOKS_SHOWN = 100;

  var token = sessionStorage.getItem(TOKEN_KEY);
  var chart = null;
  var refreshTimer = null;
  var current = null;
  var hookBody = null;
  var hookHex = false;
  var openAfterList = null;
  var replayTimer = null;

  function $(id) { return document.getElementById(id); }

  function el(tag, text, className) {
    var node = document.createElement(tag);
    if (text !== undefined && text !== null) { node.textContent = String(text); }
    if (className) { node.className = className; }
    return node;
  }

  function row(cells) {
    var tr = document.createElement('tr');
    cells.forEach(function (c) { tr.appendChild(c instanceof Node ? wrapCell(c) : el('td', c)); });
    return tr;
  }

  function wrapCell(node) {
    if (node.tagName === 'TD') { return node; }
    var td = document.createElement('td');
    td.appendChild(node);
    return td;
  }

  function fill(tbody, rows) {
    tbody.replaceChildren.apply(tbody, rows);
  }

  // ------------------------------------------------------------ token and calls

  function Unauthorized() {}

  function api(path, options) {
    options = options || {};
    var headers = { 'Authorization': 'Bearer ' + token };
    if (options.actor) { headers['X-Sluice-Actor'] = options.actor; }
    if (options.body !== undefined) { headers['Content-Type'] = 'application/json'; }
    return fetch(path, {
      method: options.method || 'GET', headers: headers, cache: 'no-store', credentials: 'omit',
      body: options.body === undefined ? undefined : JSON.stringify(options.body)
    }).then(function (response) {
      if (response.status === 401) {
        signOut('The admin token was refused (401 unauthorized). Paste the current token.');
        throw new Unauthorized();
      }
      return response.text().then(function (text) {
        var json = null;
        try { json = text ? JSON.parse(text) : null; } catch (e) { json = null; }
        return { status: response.status, json: json };
      });
    });
  }

  function failed(error) {
    if (error instanceof Unauthorized) { return; }
    $('app-error').textContent = 'Request failed: ' + (error && error.message ? error.message : error);
  }

  function signOut(message) {
    token = null;
    sessionStorage.removeItem(TOKEN_KEY);
    stopRefresh();
    $('app').hidden = true;
    $('nav').hidden = true;
    $('login').hidden = false;
    $('login-error').textContent = message || '';
  }

  function useToken() {
    var candidate = $('token').value.trim();
    if (!candidate) {
      $('login-error').textContent = 'Paste the admin token first.';
      return;
    }
    token = candidate;
    api('/v1/status').then(function (r) {
      if (r.status !== 200) {
        signOut('The server answered ' + r.status + ' to the token check.');
        return;
      }
      sessionStorage.setItem(TOKEN_KEY, token);
      $('token').value = '';
      $('login-error').textContent = '';
      start();
    }).catch(function (e) {
      if (!(e instanceof Unauthorized)) { $('login-error').textContent = 'Cannot reach the admin listener: ' + e; }
    });
  }

  function start() {
    $('login').hidden = true;
    $('nav').hidden = false;
    $('app').hidden = false;
    route();
  }

  // ------------------------------------------------------------ pages

  function route() {
    if (!token) { return; }
    var page = (location.hash || '#overview').substring(1);
    if (PAGES.indexOf(page) < 0) { page = 'overview'; }
    current = page;
    stopRefresh();
    $('app-error').textContent = '';
    PAGES.forEach(function (p) { $('page-' + p).hidden = p !== page; });
    document.querySelectorAll('nav a').forEach(function (a) {
      a.classList.toggle('active', a.getAttribute('data-page') === page);
    });
    ({ overview: overview, tenants: tenants, sources: sources, hooks: hooks, destinations: destinations,
      'dead-letters': deadLetters, audit: audit })[page]();
  }

  function stopRefresh() {
    if (refreshTimer) { clearInterval(refreshTimer); refreshTimer = null; }
  }

  function bytes(n) {
    if (n === null || n === undefined) { return 'unknown'; }
    var units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
    var i = 0;
    while (n >= 1024 && i < units.length - 1) { n /= 1024; i++; }
    return (i === 0 ? n : n.toFixed(1)) + ' ' + units[i];
  }

  // Overview: status cards and the per-second chart, refreshed every 2 s while shown.
  function overview() {
    refreshOverview();
    refreshTimer = setInterval(refreshOverview, 2000);
  }

  function refreshOverview() {
    api('/v1/status').then(function (r) {
      var s = r.json || {};
      var ready = $('ov-ready');
      ready.textContent = s.ready ? 'ready' : 'not ready: ' + s.not_ready_reason;
      ready.className = 'value ' + (s.ready ? 'ok' : 'bad');
      $('ov-store').textContent = bytes(s.store_bytes);
    }).catch(failed);
    api('/v1/admission').then(function (r) {
      var a = r.json || {};
      var fleet = $('ov-fleet');
      if (!a.fleet) {
        fleet.textContent = 'no fleet (scope ' + a.scope + ')';
        fleet.className = 'value';
      } else {
        var degraded = a.fleet.degraded || [];
        fleet.textContent = degraded.length ? degraded.join(', ') : 'no';
        fleet.className = 'value ' + (degraded.length ? 'bad' : 'ok');
      }
      if (a.queue) { $('ov-queue').textContent = a.queue.hooks + ' hooks, ' + bytes(a.queue.bytes); }
    }).catch(failed);
    api('/v1/stats/timeseries?seconds=900').then(function (r) { if (r.status === 200) { draw(r.json); } })
      .catch(failed);
  }

  function draw(ts) {
    var n = ts.series.accepted.length;
    var xs = new Array(n);
    for (var i = 0; i < n; i++) { xs[i] = ts.end - n + 1 + i; }
    var data = [xs];
    var points = 0;
    var accepted = 0;
    SERIES.forEach(function (s) {
      var values = ts.series[s[0]] || new Array(n).fill(0);
      values.forEach(function (v) { if (v > 0) { points++; } });
      data.push(values);
    });
    ts.series.accepted.forEach(function (v) { accepted += v; });
    var box = $('overview-chart');
    box.setAttribute('data-points', String(points));
    $('ov-accepted').textContent = String(accepted);
    if (typeof uPlot === 'undefined') {
      $('app-error').textContent = 'The chart library did not load.';
      return;
    }
    if (chart) {
      chart.setData(data);
      return;
    }
    var series = [{}].concat(SERIES.map(function (s) {
      return { label: s[0], stroke: s[1], width: 1.5, points: { show: false } };
    }));
    chart = new uPlot({
      width: Math.max(400, box.clientWidth - 20), height: 300, series: series,
      axes: [{}, { label: 'per second' }], scales: { x: { time: true } }
    }, data, box);
  }

  function limitText(limit) {
    if (!limit) { return ['-', '-', 'unlimited']; }
    var other = Object.keys(limit).filter(function (k) { return k !== 'rate' && k !== 'burst'; })
      .map(function (k) { return k + '=' + limit[k]; }).join(', ');
    return [limit.rate, limit.burst, other];
  }

  function auditRows(records) {
    return records.map(function (a) {
      return row([a.time, a.actor, a.action, dash(a.tenant),
        el('td', a.before ? JSON.stringify(a.before) : '-', 'mono'),
        el('td', a.after ? JSON.stringify(a.after) : '-', 'mono')]);
    });
  }

  function tenants() {
    api('/v1/rate-limits').then(function (r) {
      var l = r.json;
      $('tenants-default').textContent = l['default'] ? JSON.stringify(l['default']) : 'none (unlimited)';
      fill($('tenants-table').tBodies[0], l.tenants.map(function (t) {
        var parts = limitText(t.limit);
        var tr = row([t.tenant, parts[0], parts[1], parts[2], t.source]);
        tr.className = 'clickable';
        tr.addEventListener('click', function () {
          $('ov-tenant').value = t.tenant;
          if (t.limit) { $('ov-rate').value = t.limit.rate; $('ov-burst').value = t.limit.burst; }
        });
        return tr;
      }));
    }).catch(failed);
    api('/v1/audit?limit=10').then(function (r) {
      fill($('tenants-audit').tBodies[0], auditRows(r.json.audit));
    }).catch(failed);
  }

  function changeOverride(method) {
    var tenant = $('ov-tenant').value.trim();
    var result = $('ov-result');
    if (!tenant) { result.textContent = 'Name a tenant.'; result.className = 'error'; return; }
    var options = { method: method, actor: $('ov-actor').value.trim() || undefined };
    if (method === 'PUT') {
      options.body = { rate: Number($('ov-rate').value), burst: Number($('ov-burst').value) };
    }
    api('/v1/tenants/' + encodeURIComponent(tenant) + '/rate-limit', options).then(function (r) {
      var ok = r.status === 200 || r.status === 204;
      result.className = ok ? 'ok' : 'error';
      result.textContent = ok
        ? (method === 'PUT' ? 'Override set for ' : 'Override deleted for ') + tenant + '.'
        : 'Refused (' + r.status + '): ' + (r.json ? (r.json.message || r.json.error) : '');
      tenants();
    }).catch(failed);
  }

  function sources() {
    api('/v1/sources').then(function (r) {
      fill($('sources-table').tBodies[0], r.json.sources.map(function (s) {
        return row([s.id, s.tenant === null ? 'shared' : s.tenant, s.scheme, s.secrets, s.dedupe,
          s.bytes_per_second]);
      }));
    }).catch(failed);
  }

  // Hooks: one listing of the newest hooks, newest first and without bodies; a row's body
  // is fetched when it is opened.
  function hooks() {
    $('hook-detail').hidden = true;
    api('/v1/hooks?order=newest&limit=' + HOOKS_SHOWN).then(function (r) {
      var shown = r.json.hooks;
      $('hooks-note').textContent = (r.json.next ? 'The newest ' + shown.length + ' stored hooks'
        : 'All ' + shown.length + ' stored hooks') + ', newest first. Click one to open it.';
      fill($('hooks-table').tBodies[0], shown.map(function (h) {
        var tr = row([h.received_at, h.tenant, h.source, el('td', h.id, 'mono'), String(h.body_bytes)]);
        tr.className = 'clickable';
        tr.addEventListener('click', function () { openHook(h.id); });
        return tr;
      }));
      if (openAfterList) {
        var id = openAfterList;
        openAfterList = null;
        openHook(id);
      }
    }).catch(failed);
  }

  function openHook(id) {
    api('/v1/hooks/' + encodeURIComponent(id)).then(function (r) {
      if (r.status !== 200) { $('app-error').textContent = 'Hook ' + id + ': ' + r.status; return; }
      var h = r.json;
      $('hook-id').textContent = h.id;
      $('hook-tenant').textContent = h.tenant;
      $('hook-source').textContent = h.source;
      $('hook-received').textContent = h.received_at;
      fill($('hook-headers').tBodies[0], Object.keys(h.headers).map(function (name) {
        return row([name, el('td', h.headers[name], 'mono')]);
      }));
      var raw = atob(h.body_base64);
      hookBody = new Uint8Array(raw.length);
      for (var i = 0; i < raw.length; i++) { hookBody[i] = raw.charCodeAt(i); }
      hookHex = false;
      showBody();
      var deliveries = h.deliveries || [];
      var from = deliveriesFrom(h);
      $('hook-deliveries-from').textContent = from;
      $('hook-deliveries-from').hidden = from === '';
      $('hook-deliveries-none').hidden = deliveries.length > 0 || h.deliveries === null;
      $('hook-deliveries').hidden = deliveries.length === 0;
      fill($('hook-deliveries').tBodies[0], deliveries.map(function (d) {
        return row([d.destination, el('td', d.state, 'state-' + (d.state === 'dead' ? 'open' : 'ok')), d.attempts,
          dash(d.last_status), dash(d.last_error), dash(d.next_attempt_at), dash(d.delivered_at), dash(d.dead_reason),
          el('td', d.filter === null || d.filter === undefined ? 'every hook' : d.filter, 'mono'),
          el('td', dash(d.event_type), 'mono')]);
      }));
      $('hook-detail').hidden = false;
    }).catch(failed);
  }

  /**
   * Where the deliveries shown were read. On a single node (no node field) nothing is said. On
   * the fleet's log (docs/fleet-log.md, "A hook's deliveries") each node answers with what it
   * holds, so the page says which node answered and from what, and, when that node knows
   * nothing of them, that another node may: never "no deliveries", which would be untrue.
   */
  function deliveriesFrom(h) {
    if (h.node === undefined || h.node === null) {
      return h.deliveries === null ? 'This store kind does not show deliveries on this node.' : '';
    }
    if (h.deliveries_from === 'this_node') {
      return 'Read on node ' + h.node + ', which holds this hook\'s deliveries.';
    }
    if (h.deliveries_from === 'dead_letters') {
      return 'Node ' + h.node + ' holds no delivery of this hook; shown are its dead letters, as the fleet keeps them.';
    }
    return 'Node ' + h.node + ' knows nothing of this hook\'s deliveries: the node that owns its partition of the log'
        + ' may (open the console of each node), or they were delivered and forgotten.';
  }

  function showBody() {
    var out = $('hook-body');
    $('hook-toggle').textContent = hookHex ? 'Show as text' : 'Show as hex';
    if (!hookHex) {
      out.textContent = new TextDecoder('utf-8', { fatal: false }).decode(hookBody);
      return;
    }
    var lines = [];
    for (var off = 0; off < hookBody.length; off += 16) {
      var hex = [];
      var text = '';
      for (var j = off; j < Math.min(off + 16, hookBody.length); j++) {
        hex.push((hookBody[j] < 16 ? '0' : '') + hookBody[j].toString(16));
        text += hookBody[j] >= 0x20 && hookBody[j] < 0x7f ? String.fromCharCode(hookBody[j]) : '.';
      }
      lines.push(('0000000' + off.toString(16)).slice(-8) + '  ' + hex.join(' ').padEnd(47) + '  ' + text);
    }
    out.textContent = lines.join('\n');
  }

  function dash(v) { return v === null || v === undefined ? '-' : v; }

  function age(ms) {
    var s = Math.floor(ms / 1000);
    if (s >= 3600) { return Math.floor(s / 3600) + ' h ' + Math.floor((s % 3600) / 60) + ' min'; }
    if (s >= 60) { return Math.floor(s / 60) + ' min ' + (s % 60) + ' s'; }
    return s + ' s';
  }

  // Destinations: live state and backlog, refreshed every 2 s; pause, resume, and enable a disabled one.
  function destinations() {
    refreshDestinations();
    refreshTimer = setInterval(refreshDestinations, 2000);
  }

  // Destinations: transform:test, the request a transformation would make (nothing is sent).
  function tryTransform() {
    var name = $('tt-destination').value.trim();
    var hook = $('tt-hook').value.trim();
    var body = hook ? { hook: hook } : { body: $('tt-body').value, tenant: $('tt-tenant').value, source: $('tt-source').value };
    $('tt-request').hidden = true;
    api('/v1/destinations/' + encodeURIComponent(name) + '/transform:test', { method: 'POST', body: body }).then(function (r) {
      var j = r.json || {};
      if (r.status !== 200) {
        $('tt-result').textContent = r.status + ' ' + (j.error || '') + (j.message ? ': ' + j.message : '');
        return;
      }
      $('tt-result').textContent = 'The request it would send:';
      var lines = [j.method + ' ' + j.url];
      Object.keys(j.headers).forEach(function (h) { lines.push(h + ': ' + j.headers[h]); });
      $('tt-request').textContent = lines.join('\n') + '\n\n' + j.body;
      $('tt-request').hidden = false;
    }).catch(failed);
  }

  function refreshDestinations() {
    api('/v1/destinations').then(function (r) {
      fill($('destinations-table').tBodies[0], r.json.destinations.map(function (d) {
        var action = d.state === 'disabled' ? 'enable' : d.state === 'paused' ? 'resume' : 'pause';
        var button = el('button', action.charAt(0).toUpperCase() + action.slice(1));
        button.type = 'button';
        button.setAttribute('data-destination', d.name);
        button.setAttribute('data-action', action);
        button.addEventListener('click', function () { pauseOrResume(d.name, button.getAttribute('data-action')); });
        // a disabled destination says since when and why: the time and its last error
        var state = el('td', d.disabled ? 'disabled since ' + d.disabled.at + ': ' + d.disabled.last_error : d.state,
          'state-' + d.state);
        // the pace now: a fixed rate as configured, an adaptive one where it stands on this node
        var pace = d.pace_per_second === null || d.pace_per_second === undefined ? '-'
          : d.pacing === 'adaptive' ? d.pace_per_second + ' (adaptive)' : String(d.pace_per_second);
        var tr = row([d.name, d.type, state, d.in_flight, pace, d.pending,
          d.pending > 0 ? age(d.oldest_pending_age_ms) : '-', d.dead, d.delivered_total, d.failed_attempts_total, button]);
        tr.setAttribute('data-destination', d.name);
        return tr;
      }));
    }).catch(failed);
  }

  function pauseOrResume(name, action) {
    var result = $('dest-result');
    api('/v1/destinations/' + encodeURIComponent(name) + '/' + action,
      { method: 'POST', actor: $('dest-actor').value.trim() || undefined }).then(function (r) {
      var ok = r.status === 200;
      result.className = ok ? 'ok' : 'error';
      result.textContent = ok ? name + ' is ' + r.json.state + '.'
        : 'Refused (' + r.status + '): ' + (r.json ? (r.json.message || r.json.error) : '');
      refreshDestinations();
    }).catch(failed);
  }

  // Dead letters: list (one page of up to 1000), inspect, redeliver one, replay a range.
  function deadLetters() {
    api('/v1/destinations').then(function (r) {
      var names = r.json.destinations.map(function (d) { return d.name; });
      var filter = $('dl-destination');
      var chosen = filter.value;
      filter.replaceChildren.apply(filter, [option('', 'all')].concat(names.map(function (n) { return option(n, n); })));
      filter.value = names.indexOf(chosen) >= 0 ? chosen : '';
      var target = $('rp-destination');
      var picked = target.value;
      target.replaceChildren.apply(target, names.map(function (n) { return option(n, n); }));
      if (names.indexOf(picked) >= 0) { target.value = picked; }
    }).catch(failed);
    if (!$('rp-from').value) {
      var now = Date.now();
      $('rp-from').value = new Date(now - 3600 * 1000).toISOString();
      $('rp-to').value = new Date(now).toISOString();
    }
    listDeadLetters();
  }

  function option(value, text) {
    var o = el('option', text);
    o.value = value;
    return o;
  }

  function listDeadLetters() {
    var destination = $('dl-destination').value;
    var path = '/v1/dead-letters?limit=1000' + (destination ? '&destination=' + encodeURIComponent(destination) : '');
    api(path).then(function (r) {
      if (r.status !== 200) { $('app-error').textContent = 'Dead letters: ' + r.status; return; }
      var letters = r.json.dead_letters;
      $('dl-note').textContent = letters.length === 0 ? 'No dead letters.'
        : (r.json.next ? 'The oldest ' + letters.length + ' dead letters (more exist).' : letters.length + (letters.length === 1 ? ' dead letter.' : ' dead letters, oldest hook first.'));
      fill($('dead-table').tBodies[0], letters.map(function (d) {
        var inspect = el('button', 'Inspect');
        inspect.type = 'button';
        inspect.className = 'inspect';
        inspect.addEventListener('click', function () { openAfterList = d.id; location.hash = '#hooks'; });
        var again = el('button', 'Redeliver');
        again.type = 'button';
        again.className = 'redeliver';
        again.addEventListener('click', function () { redeliver(d.id, d.destination); });
        var actions = document.createElement('td');
        actions.appendChild(inspect);
        actions.appendChild(again);
        var tr = row([el('td', d.id, 'mono'), d.destination, d.reason, d.attempts, dash(d.last_status), d.dead_at, actions]);
        tr.setAttribute('data-hook', d.id);
        return tr;
      }));
    }).catch(failed);
  }

  function redeliver(id, destination) {
    var result = $('dl-result');
    api('/v1/hooks/' + encodeURIComponent(id) + '/redeliver', {
      method: 'POST', actor: $('dl-actor').value.trim() || undefined, body: { destinations: [destination] }
    }).then(function (r) {
      var ok = r.status === 202;
      result.className = ok ? 'ok' : 'error';
      result.textContent = ok ? 'Redelivery of ' + id + ' to ' + destination + ' scheduled.'
        : 'Refused (' + r.status + '): ' + (r.json ? (r.json.message || r.json.error) : '');
      listDeadLetters();
    }).catch(failed);
  }

  function startReplay() {
    var result = $('rp-result');
    var name = $('rp-destination').value;
    if (!name) { result.className = 'error'; result.textContent = 'No destination is configured.'; return; }
    var body = { from: $('rp-from').value.trim(), to: $('rp-to').value.trim(),
      dead_only: $('rp-dead-only').checked, rate: Number($('rp-rate').value) };
    api('/v1/destinations/' + encodeURIComponent(name) + '/replay', {
      method: 'POST', actor: $('dl-actor').value.trim() || undefined, body: body
    }).then(function (r) {
      if (r.status !== 202) {
        result.className = 'error';
        result.textContent = 'Refused (' + r.status + '): ' + (r.json ? (r.json.message || r.json.error) : '');
        return;
      }
      result.className = '';
      result.textContent = 'Replay ' + r.json.replay + ': ' + r.json.scheduled + ' hooks to schedule.';
      followReplay(r.json.replay, r.json.scheduled);
    }).catch(failed);
  }

  function followReplay(id, total) {
    if (replayTimer) { clearInterval(replayTimer); }
    var bar = $('rp-bar');
    bar.max = Math.max(1, total);
    bar.value = 0;
    $('rp-progress').hidden = false;
    $('rp-progress').setAttribute('data-state', 'running');
    function poll() {
      api('/v1/replays/' + encodeURIComponent(id)).then(function (r) {
        if (r.status !== 200) { clearInterval(replayTimer); replayTimer = null; return; }
        var p = r.json;
        bar.value = total === 0 ? 1 : p.scheduled;
        $('rp-text').textContent = p.scheduled + ' / ' + total + ' scheduled, ' + p.delivered + ' delivered, '
          + p.dead + ' dead (' + p.state + ')';
        $('rp-progress').setAttribute('data-state', p.state);
        if (p.state === 'done') {
          clearInterval(replayTimer);
          replayTimer = null;
          if (current === 'dead-letters') { listDeadLetters(); }
        }
      }).catch(failed);
    }
    poll();
    replayTimer = setInterval(poll, 500);
  }

  function audit() {
    api('/v1/audit?limit=100').then(function (r) {
      fill($('audit-table').tBodies[0], auditRows(r.json.audit));
    }).catch(failed);
  }

  // ------------------------------------------------------------ wiring

  document.addEventListener('DOMContentLoaded', function () {
    $('token-save').addEventListener('click', useToken);
    $('token').addEventListener('keydown', function (e) { if (e.key === 'Enter') { useToken(); } });
    $('sign-out').addEventListener('click', function () { signOut(''); });
    $('ov-set').addEventListener('click', function () { changeOverride('PUT'); });
    $('ov-delete').addEventListener('click', function () { changeOverride('DELETE'); });
    $('hook-toggle').addEventListener('click', function () { hookHex = !hookHex; showBody(); });
    $('dl-refresh').addEventListener('click', listDeadLetters);
    $('dl-destination').addEventListener('change', listDeadLetters);
    $('rp-start').addEventListener('click', startReplay);
    $('tt-run').addEventListener('click', tryTransform);
    window.addEventListener('hashchange', route);
    if (token) { start(); }
  });
}());
