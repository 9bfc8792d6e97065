// trtlens report page. Plain JS, no libraries, nothing fetched.
// Every string that comes from the model reaches the DOM through textContent
// or setAttribute, never through HTML parsing.
(function () {
  'use strict';
  const SVG = 'http://www.w3.org/2000/svg';
  const D = JSON.parse(document.getElementById('trtlens-data').textContent);
  const R = D.releases.length;
  const ITEM_NODE = 0, ITEM_INPUT = 1, ITEM_OUTPUT = 2, ITEM_FROM = 3, ITEM_TO = 4;
  const BADGE = { SUPPORTED: '\u2713', FALLBACK: '!', IMPLICIT_CAST: '!', UNSUPPORTED: '\u2715', UNKNOWN: '?' };
  const VERDICT_LABEL = { SUPPORTED: 'supported', FALLBACK: 'fallback', IMPLICIT_CAST: 'implicit cast',
    UNSUPPORTED: 'unsupported', UNKNOWN: 'unknown' };
  const PREC_LABEL = { fp32: 'FP32', fp16: 'FP16', bf16: 'BF16', int8: 'INT8', fp8: 'FP8', best: 'best' };

  const $ = (id) => document.getElementById(id);
  const relSel = document.querySelector('select[name="release"]');
  const precSel = document.querySelector('select[name="precision"]');
  const regionSel = document.querySelector('select[name="region"]');
  const svg = $('canvas'), viewport = $('viewport'), edgeLayer = $('edges'), itemLayer = $('items');

  const state = {
    rel: D.initial[0], prec: D.initial[1],
    stack: [0],          // graphs entered, main first
    region: 0,
    selected: null,      // {g, i}
    tab: 'attributes',
    view: { x: 0, y: 0, k: 1 },
  };
  const regionMemo = {};  // "g" -> last region shown
  let rendered = [];      // [{el, g, i}] node elements of the region on screen
  let curDetail = null;   // detail id per profile, for the selected runtime

  // ---- small DOM helpers -------------------------------------------------
  function el(tag, attrs, text) {
    const e = document.createElement(tag);
    if (attrs) for (const k in attrs) e.setAttribute(k, attrs[k]);
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function sv(tag, attrs, text) {
    const e = document.createElementNS(SVG, tag);
    if (attrs) for (const k in attrs) e.setAttribute(k, attrs[k]);
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function clear(e) { while (e.firstChild) e.removeChild(e.firstChild); }
  function clip(s, n) { s = String(s); return s.length > n ? s.slice(0, n - 1) + '\u2026' : s; }

  // ---- verdicts ----------------------------------------------------------
  function runtimeIndex(rel, prec) { return prec * R + rel; }
  function detailsFor(k) {
    const out = new Int32Array(D.profiles.length);
    for (let p = 0; p < D.profiles.length; p++) {
      const rle = D.profiles[p];
      let at = 0;
      for (let j = 0; j < rle.length; j += 2) {
        at += rle[j + 1];
        if (k < at) { out[p] = rle[j]; break; }
      }
    }
    return out;
  }
  function detailOf(node, rel, prec) {
    if (rel === undefined) return D.details[curDetail[node.p]];
    const k = runtimeIndex(rel, prec), rle = D.profiles[node.p];
    let at = 0;
    for (let j = 0; j < rle.length; j += 2) { at += rle[j + 1]; if (k < at) return D.details[rle[j]]; }
    return null;
  }
  function verdictOf(node) { return D.verdicts[D.details[curDetail[node.p]][0]]; }
  function nodeId(g, i) { return D.graphs[g].path + '/' + D.graphs[g].nodes[i].ix; }
  function graphLabel(g) {
    const gr = D.graphs[g];
    return gr.kind === 'main' ? 'main' : gr.path;
  }

  // ---- runtime selector ----------------------------------------------------
  D.releases.forEach((r, i) => relSel.appendChild(el('option', { value: r.name }, r.name + (r.basis === 'derived' ? ' *' : ''))));
  D.precisions.forEach((p, i) => precSel.appendChild(el('option', { value: p }, PREC_LABEL[p] || p)));
  relSel.title = 'Releases marked * are derived from changelogs rather than a published support table';
  $('model-title').title = [D.title, D.model.producer, 'IR ' + D.model.ir_version,
    'opsets ' + D.model.opsets.map((o) => (o[0] || 'ai.onnx') + ' ' + o[1]).join(', '), D.model.nodes + ' nodes'].filter(Boolean).join(' \u00b7 ');
  relSel.selectedIndex = state.rel;
  precSel.selectedIndex = state.prec;
  relSel.addEventListener('change', () => { state.rel = relSel.selectedIndex; applyRuntime(); });
  precSel.addEventListener('change', () => { state.prec = precSel.selectedIndex; applyRuntime(); });

  function applyRuntime() {
    curDetail = detailsFor(runtimeIndex(state.rel, state.prec));
    for (const r of rendered) setVerdict(r.el, verdictOf(D.graphs[r.g].nodes[r.i]));
    renderSummary();
    if (state.selected) renderDrawer();
  }
  function setVerdict(e, v) {
    e.setAttribute('data-verdict', v);
    e.querySelector('.badge text').textContent = BADGE[v];
    e.querySelector('.badge title').textContent = 'TensorRT: ' + VERDICT_LABEL[v];
  }

  // ---- summary bar -------------------------------------------------------
  function renderSummary() {
    const counts = D.verdicts.map(() => 0);
    const bad = [];
    D.graphs.forEach((gr, g) => gr.nodes.forEach((n, i) => {
      const v = D.details[curDetail[n.p]][0];
      counts[v]++;
      if (D.verdicts[v] === 'UNSUPPORTED') bad.push([g, i]);
    }));
    const box = $('counts');
    clear(box);
    D.verdicts.forEach((v, j) => {
      const c = el('span', { class: 'count v-' + v, 'data-count': v });
      c.appendChild(el('span', { class: 'dot' }));
      c.appendChild(document.createTextNode(VERDICT_LABEL[v] + ': ' + counts[j]));
      box.appendChild(c);
    });
    $('unsupported-count').textContent = String(bad.length);
    const list = $('unsupported-list');
    clear(list);
    const MAX = 300;
    for (const [g, i] of bad.slice(0, MAX)) {
      const n = D.graphs[g].nodes[i];
      const li = el('li');
      const b = el('button', { type: 'button', 'data-target': nodeId(g, i) }, n.op + ' ' + (n.n || '#' + n.ix) + (g ? '  (' + graphLabel(g) + ')' : ''));
      b.addEventListener('click', () => reveal(g, i, true));
      li.appendChild(b);
      list.appendChild(li);
    }
    if (bad.length > MAX) list.appendChild(el('li', null, '\u2026 and ' + (bad.length - MAX) + ' more (use search)'));
  }

  // ---- TensorRT regions (the partition of the runtime the page opened on) ----
  function renderPartition() {
    const P = D.partition;
    if (!P) return;
    $('by-region-toggle').hidden = false;
    $('by-region').addEventListener('change', (ev) => svg.classList.toggle('by-region', ev.target.checked));
    const sizes = P.regions.length > 12 ? P.regions.slice(0, 12).join(' + ') + ' + \u2026' : P.regions.join(' + ');
    $('partition-summary').textContent = 'TensorRT ' + P.release + ' ' + (PREC_LABEL[P.precision] || P.precision) + ': ' +
      P.regions.length + ' region' + (P.regions.length === 1 ? '' : 's') + (P.regions.length ? ' (' + sizes + ' nodes)' : '');
  }

  // ---- the engine overlay (report --engine) ---------------------------------
  // E.of[g][i] = [layers, match, vanished, folded_into] for node i of graph g.
  const E = D.engine;
  const layerNodes = [];  // per engine layer: [[g, i], ...] of the nodes it holds
  let maxPercent = 0;
  if (E) {
    E.layers.forEach((l) => { layerNodes.push([]); maxPercent = Math.max(maxPercent, l[4] || 0); });
    E.of.forEach((row, g) => row.forEach((x, i) => { if (x) x[0].forEach((l) => layerNodes[l].push([g, i])); }));
  }
  const MATCH_LABEL = { metadata: 'Metadata ([ONNX Layer: …])', name: 'layer name',
    'foreign-node-range': 'ForeignNode range', neighbours: 'Q/DQ neighbours (inferred: no layer names it)' };
  const VANISHED_LABEL = {
    'foreign-node': 'Fused into a Myelin ForeignNode region: the region runs as one layer, so this node\'s own time is not measured.',
    'constant-folded': 'Constant-folded: its outputs are constants, computed when the engine was built.',
    'not-found': 'Not found: no engine layer names it. TensorRT removed it (Identity, Dropout, a reshape that became a no-op) or renamed it.' };
  function engineOf(g, i) { return E && E.of[g] ? E.of[g][i] || null : null; }
  function layerOf(x) { return x && x[0].length ? E.layers[x[0][0]] : null; }
  function msText(v) { return v === null || v === undefined ? 'untimed' : (v === 0 ? '0' : v < 0.01 ? v.toFixed(5) : v.toFixed(4)) + ' ms'; }
  function pctText(v) { return v.toFixed(1) + '%'; }
  function nodeLatency(x) {
    let ms = 0, pct = 0, timed = true;
    x[0].forEach((l) => { const L = E.layers[l]; if (L[3] === null) timed = false; ms += L[3] || 0; pct += L[4] || 0; });
    return { ms: timed ? ms : null, pct: pct };
  }
  function decorateEngine(e, g, i) {
    const x = engineOf(g, i);
    if (!x) return;
    const van = E.vanished_names[x[2]];
    if (van) e.setAttribute('data-vanished', van);
    if (!x[0].length) return;
    const l = x[0][0], L = E.layers[l];
    e.setAttribute('data-layer', l);
    e.setAttribute('data-eprec', L[2] || 'none');
    e.style.setProperty('--layer-hue', String((l * 137) % 360));  // golden-angle steps: neighbours differ
    e.style.setProperty('--heat', String(maxPercent > 0 ? nodeLatency(x).pct / maxPercent : 0));
  }
  function renderEngine() {
    if (!E) return;
    $('engine-bar').hidden = false;
    document.querySelector('.tabs button[data-tab="engine"]').hidden = false;
    const S = E.summary;
    const box = $('engine-summary');
    box.textContent = 'Engine ' + E.plan + ' (TensorRT ' + (E.release >= 0 ? D.releases[E.release].name : '?') + ' ' +
      (PREC_LABEL[D.precisions[E.precision]] || '') + '): ' + S.in_layers + ' of ' + S.nodes + ' nodes in ' +
      S.layers_with_nodes + ' of ' + S.layers + ' layers; ' + S.constant_folded + ' constant-folded, ' + S.not_found + ' not found';
    box.title = ['release: ' + E.release_source, 'precision: ' + E.precision_source].concat(E.notes).join('\n');
    $('disagreement-count').textContent = String(E.disagreements.length);
    const list = $('disagreement-list');
    clear(list);
    E.disagreements.forEach(([g, i, kind, , , , message]) => {
      const li = el('li');
      const b = el('button', { type: 'button', 'data-target': nodeId(g, i) }, message);
      b.addEventListener('click', () => reveal(g, i, true));
      li.appendChild(b);
      li.appendChild(el('span', { class: 'kind' }, kind));
      list.appendChild(li);
    });
    const sel = document.querySelector('select[name="engine-color"]');
    sel.addEventListener('change', () => setEngineColor(sel.value));
    $('by-region').addEventListener('change', (ev) => { if (ev.target.checked) { sel.value = 'verdict'; setEngineColor('verdict'); } });
  }
  function setEngineColor(mode) {
    const legend = $('engine-legend');
    clear(legend);
    legend.hidden = mode === 'verdict' || mode === 'layer';
    if (mode === 'verdict') { svg.removeAttribute('data-ecolor'); return; }
    svg.setAttribute('data-ecolor', mode);
    // One colouring at a time: the TensorRT-region toggle gives way.
    const region = $('by-region');
    if (region.checked) { region.checked = false; svg.classList.remove('by-region'); }
    if (mode === 'precision') {
      const seen = {};
      E.layers.forEach((L) => { seen[L[2] || 'none'] = true; });
      Object.keys(seen).sort().forEach((p) => {
        const item = el('span');
        item.appendChild(el('span', { class: 'swatch', 'data-eprec': p }));
        item.appendChild(document.createTextNode(p));
        legend.appendChild(item);
      });
    } else if (mode === 'time') {
      legend.textContent = 'darker: more of the time (up to ' + pctText(maxPercent) + ' for one layer)';
    }
  }

  // ---- drawing a region ----------------------------------------------------
  function curGraph() { return state.stack[state.stack.length - 1]; }

  function pathD(pts) {
    // pts: Graphviz control points (1 + 3k of them), then the arrow tip.
    const n = pts.length / 2 - 1;
    let d = 'M' + pts[0] + ',' + pts[1];
    for (let j = 1; j + 2 < n; j += 3)
      d += 'C' + pts[2 * j] + ',' + pts[2 * j + 1] + ' ' + pts[2 * j + 2] + ',' + pts[2 * j + 3] + ' ' + pts[2 * j + 4] + ',' + pts[2 * j + 5];
    return d + 'L' + pts[2 * n] + ',' + pts[2 * n + 1];
  }

  function renderRegion() {
    const g = curGraph(), gr = D.graphs[g];
    const reg = gr.regions[state.region] || { w: 0, h: 0, items: [], edges: [] };
    clear(edgeLayer); clear(itemLayer);
    rendered = [];
    const items = reg.items;
    const efrag = document.createDocumentFragment();
    for (const [from, to, t, pts] of reg.edges) {
      let d;
      if (pts.length >= 4) d = pathD(pts);
      else { const a = items[from], b = items[to]; d = 'M' + a[2] + ',' + (a[3] + a[5] / 2) + 'L' + b[2] + ',' + (b[3] - b[5] / 2); }
      const hit = sv('path', { class: 'edge-hit', d: d, 'data-tensor': t });
      efrag.appendChild(hit);
      efrag.appendChild(sv('path', { class: 'edge', d: d, 'marker-end': 'url(#arrow)' }));
    }
    edgeLayer.appendChild(efrag);
    const ifrag = document.createDocumentFragment();
    items.forEach((it) => {
      const [kind, ref, cx, cy, w, h, extra] = it;
      const x = cx - w / 2, y = cy - h / 2;
      if (kind === ITEM_NODE) {
        const n = gr.nodes[ref];
        const v = verdictOf(n);
        const subs = (n.s || []).length + (n.f !== undefined ? 1 : 0);
        const e = sv('g', { class: 'node' + (subs ? ' has-sub' : ''), transform: 'translate(' + x + ',' + y + ')',
          'data-node': gr.path + '/' + n.ix, 'data-verdict': v, 'data-g': g, 'data-i': ref });
        if (g === 0 && D.partition) {
          const part = D.partition.of[n.ix];
          e.setAttribute('data-part', part);
          e.style.setProperty('--part-hue', String((part * 137) % 360));  // golden-angle steps: neighbours differ
        }
        decorateEngine(e, g, ref);
        e.appendChild(sv('rect', { class: 'box', width: w, height: h, rx: 5 }));
        const chars = Math.max(6, Math.floor((w - 30) / 7));
        e.appendChild(sv('text', { class: 'op', x: 8, y: 15 }, clip(n.op, chars)));
        e.appendChild(sv('text', { class: 'name', x: 8, y: 30 }, clip(n.n || '#' + n.ix, Math.floor((w - 12) / 6.1))));
        if (subs) e.appendChild(sv('text', { class: 'sub', x: 8, y: 45 }, '\u2935 ' + (n.f !== undefined ? 'function' : subs > 1 ? subs + ' bodies' : 'body')));
        const badge = sv('g', { class: 'badge', transform: 'translate(' + (w - 11) + ',11)' });
        badge.appendChild(sv('title', null, 'TensorRT: ' + VERDICT_LABEL[v]));
        badge.appendChild(sv('circle', { r: 8 }));
        badge.appendChild(sv('text', null, BADGE[v]));
        e.appendChild(badge);
        ifrag.appendChild(e);
        rendered.push({ el: e, g: g, i: ref });
      } else if (kind === ITEM_INPUT || kind === ITEM_OUTPUT) {
        const t = gr.tensors[ref];
        const e = sv('g', { class: 'io ' + (kind === ITEM_INPUT ? 'input' : 'output'), transform: 'translate(' + x + ',' + y + ')', 'data-tensor': ref });
        e.appendChild(sv('rect', { width: w, height: h, rx: h / 2 }));
        e.appendChild(sv('text', { x: w / 2, y: h / 2 }, clip(t[0], Math.floor((w - 14) / 6.1))));
        ifrag.appendChild(e);
      } else {
        const label = kind === ITEM_FROM ? '\u2191 ' + clip(gr.tensors[ref][0], 18) + ' (region ' + (extra + 1) + ')'
          : '\u2193 to region ' + (extra + 1);
        const e = sv('g', { class: 'link', transform: 'translate(' + x + ',' + y + ')', 'data-region': extra });
        if (kind === ITEM_FROM) e.setAttribute('data-tensor', ref);
        e.appendChild(sv('rect', { width: w, height: h, rx: 4 }));
        e.appendChild(sv('text', { x: w / 2, y: h / 2 }, label));
        ifrag.appendChild(e);
      }
    });
    itemLayer.appendChild(ifrag);
    markSelected();
    renderRegionBar();
    renderCrumbs();
  }

  function renderRegionBar() {
    const gr = D.graphs[curGraph()];
    const bar = $('regionbar');
    bar.hidden = gr.regions.length < 2;
    if (bar.hidden) return;
    if (regionSel.options.length !== gr.regions.length || regionSel.dataset.g !== String(curGraph())) {
      clear(regionSel);
      const counts = gr.regions.map(() => 0);
      gr.nodes.forEach((n) => counts[n.r]++);
      gr.regions.forEach((_, r) => regionSel.appendChild(el('option', { value: r }, 'Region ' + (r + 1) + ' of ' + gr.regions.length + ' (' + counts[r] + ' nodes)')));
      regionSel.dataset.g = String(curGraph());
    }
    regionSel.selectedIndex = state.region;
  }
  regionSel.addEventListener('change', () => showRegion(regionSel.selectedIndex, true));

  function showRegion(r, fitView) {
    const gr = D.graphs[curGraph()];
    state.region = Math.max(0, Math.min(gr.regions.length - 1, r));
    regionMemo[curGraph()] = state.region;
    renderRegion();
    if (fitView) firstView();
  }

  function renderCrumbs() {
    const c = $('crumbs');
    clear(c);
    state.stack.forEach((g, j) => {
      if (j) c.appendChild(el('span', { class: 'sep' }, '\u203a'));
      const b = el('button', { type: 'button', 'data-graph': D.graphs[g].path }, graphLabel(g));
      if (j === state.stack.length - 1) b.setAttribute('aria-current', 'page');
      else b.addEventListener('click', () => { state.stack = state.stack.slice(0, j + 1); enterGraph(); });
      c.appendChild(b);
    });
  }

  // ---- graphs: entering and leaving ------------------------------------------
  function chainTo(g) {
    const chain = [];
    for (let x = g; x >= 0; x = D.graphs[x].parent) chain.unshift(x);
    if (chain[0] !== 0) chain.unshift(0);  // a local function: reached from the main graph
    return chain;
  }
  function enterGraph(region) {
    // The drawer belongs to a node of the graph being left.
    drawer.hidden = true;
    state.selected = null;
    state.region = region !== undefined ? region : (regionMemo[curGraph()] || 0);
    regionMemo[curGraph()] = state.region;
    renderRegion();
    firstView();
  }
  function openGraph(g) {
    state.stack.push(g);
    enterGraph();
  }

  // ---- view: pan, zoom, fit ------------------------------------------------
  function applyView() {
    const v = state.view;
    viewport.setAttribute('transform', 'translate(' + v.x + ',' + v.y + ') scale(' + v.k + ')');
  }
  function fit() {
    const reg = D.graphs[curGraph()].regions[state.region];
    const W = svg.clientWidth || 800, H = svg.clientHeight || 600;
    if (!reg || !reg.w) { state.view = { x: 20, y: 20, k: 1 }; applyView(); return; }
    const k = Math.min(1.5, Math.min((W - 40) / reg.w, (H - 40) / reg.h));
    state.view = { k: k, x: (W - reg.w * k) / 2, y: Math.max(20, (H - reg.h * k) / 2) };
    applyView();
  }
  // Opening a drawing: the whole of it when it stays readable, else its top
  // at a readable scale (a tall region fitted whole is a grey thread).
  function firstView() {
    fit();
    const reg = D.graphs[curGraph()].regions[state.region];
    if (!reg || state.view.k >= 0.45) return;
    const W = svg.clientWidth || 800;
    const k = Math.max(0.45, Math.min(1, (W - 40) / reg.w));
    let top = reg.items[0];
    for (const it of reg.items) if (it[3] < top[3]) top = it;
    state.view = { k: k, x: W / 2 - (top ? top[2] : reg.w / 2) * k, y: 20 };
    applyView();
  }
  function zoomAt(factor, px, py) {
    const v = state.view;
    const k = Math.min(4, Math.max(0.02, v.k * factor));
    v.x = px - (px - v.x) * (k / v.k);
    v.y = py - (py - v.y) * (k / v.k);
    v.k = k;
    applyView();
  }
  function centerOn(cx, cy) {
    // Centre in the part of the drawing the drawer does not cover.
    const W = (svg.clientWidth || 800) - (drawer.hidden ? 0 : drawer.offsetWidth), H = svg.clientHeight || 600;
    const v = state.view;
    v.k = Math.max(v.k, 0.8);
    v.x = W / 2 - cx * v.k;
    v.y = H / 2 - cy * v.k;
    applyView();
  }
  svg.addEventListener('wheel', (ev) => {
    ev.preventDefault();
    const r = svg.getBoundingClientRect();
    zoomAt(Math.exp(-ev.deltaY * 0.0015), ev.clientX - r.left, ev.clientY - r.top);
  }, { passive: false });
  let drag = null;
  svg.addEventListener('pointerdown', (ev) => {
    if (ev.button !== 0) return;
    drag = { x: ev.clientX, y: ev.clientY, vx: state.view.x, vy: state.view.y, moved: false };
  });
  window.addEventListener('pointermove', (ev) => {
    if (!drag) return;
    const dx = ev.clientX - drag.x, dy = ev.clientY - drag.y;
    if (!drag.moved && Math.abs(dx) + Math.abs(dy) > 4) { drag.moved = true; svg.classList.add('dragging'); }
    if (drag.moved) { state.view.x = drag.vx + dx; state.view.y = drag.vy + dy; applyView(); }
  });
  window.addEventListener('pointerup', () => {
    if (drag && drag.moved) svg.dataset.justDragged = '1';
    drag = null;
    svg.classList.remove('dragging');
  });
  $('controls').addEventListener('click', (ev) => {
    const act = ev.target.closest('button') && ev.target.closest('button').dataset.act;
    const W = svg.clientWidth, H = svg.clientHeight;
    if (act === 'zoom-in') zoomAt(1.25, W / 2, H / 2);
    else if (act === 'zoom-out') zoomAt(0.8, W / 2, H / 2);
    else if (act === 'fit') fit();
  });
  $('regionbar').addEventListener('click', (ev) => {
    const b = ev.target.closest('button');
    if (!b) return;
    if (b.dataset.act === 'prev-region') showRegion(state.region - 1, true);
    if (b.dataset.act === 'next-region') showRegion(state.region + 1, true);
  });

  // Clicks on the drawing: nodes open the drawer, region links jump.
  svg.addEventListener('click', (ev) => {
    if (svg.dataset.justDragged) { delete svg.dataset.justDragged; return; }
    const node = ev.target.closest('.node');
    if (node) { select(+node.dataset.g, +node.dataset.i); return; }
    const link = ev.target.closest('.link');
    if (link) {
      const target = +link.dataset.region;
      const t = link.dataset.tensor;
      showRegion(target, true);
      // Coming from a producer in another region: centre on it.
      if (t !== undefined) {
        const gr = D.graphs[curGraph()];
        const i = gr.nodes.findIndex((n) => n.r === target && n.o.indexOf(+t) >= 0);
        if (i >= 0) reveal(curGraph(), i, true);
      }
    }
  });
  svg.addEventListener('dblclick', (ev) => {
    const node = ev.target.closest('.node');
    if (!node) return;
    const n = D.graphs[+node.dataset.g].nodes[+node.dataset.i];
    if (n.s && n.s.length) openGraph(n.s[0]);
    else if (n.f !== undefined) openGraph(n.f);
  });

  // Tooltips: tensor name, element type and shape on edges and I/O items.
  const tip = $('tooltip');
  function tensorText(g, t) {
    const x = D.graphs[g].tensors[t];
    return x[0] + '\n' + x[1] + ' ' + x[2] + (x[3] === 'initializer' ? '  (initializer)' : '');
  }
  svg.addEventListener('mousemove', (ev) => {
    const target = ev.target.closest('[data-tensor]');
    const node = target ? null : ev.target.closest('.node');
    let text = null;
    if (target) text = tensorText(curGraph(), +target.getAttribute('data-tensor'));
    else if (node) {
      const n = D.graphs[+node.dataset.g].nodes[+node.dataset.i];
      text = n.op + (n.n ? '  ' + n.n : '') + '\nTensorRT: ' + VERDICT_LABEL[node.getAttribute('data-verdict')];
      const x = engineOf(+node.dataset.g, +node.dataset.i);
      if (x) {
        const L = layerOf(x);
        text += '\nEngine: ' + (L ? clip(L[0], 60) + ' (' + (L[2] || '?') + ', ' + msText(nodeLatency(x).ms) + ')'
          : E.vanished_names[x[2]]);
      }
    }
    if (text === null) { tip.hidden = true; return; }
    const r = $('stage').getBoundingClientRect();
    tip.textContent = text;
    tip.hidden = false;
    tip.style.left = Math.min(ev.clientX - r.left + 14, r.width - 260) + 'px';
    tip.style.top = (ev.clientY - r.top + 14) + 'px';
  });
  svg.addEventListener('mouseleave', () => { tip.hidden = true; });

  // ---- selection and navigation ---------------------------------------------
  function reveal(g, i, andSelect) {
    const chain = chainTo(g);
    const gr = D.graphs[g], n = gr.nodes[i];
    const same = state.stack.length === chain.length && state.stack.every((x, j) => x === chain[j]);
    if (!same || state.region !== n.r) {
      state.stack = chain;
      state.region = n.r;
      regionMemo[g] = n.r;
      renderRegion();
    }
    if (andSelect) select(g, i);
    const it = gr.regions[n.r].items[n.b];
    centerOn(it[2], it[3]);
  }
  function select(g, i) {
    state.selected = { g: g, i: i };
    markSelected();
    renderDrawer();
  }
  function markSelected() {
    for (const r of rendered) {
      const on = state.selected && state.selected.g === r.g && state.selected.i === r.i;
      r.el.classList.toggle('selected', !!on);
    }
  }

  // ---- drawer ------------------------------------------------------------
  const drawer = $('drawer');
  $('drawer-close').addEventListener('click', () => { drawer.hidden = true; state.selected = null; markSelected(); });
  document.querySelector('.tabs').addEventListener('click', (ev) => {
    const b = ev.target.closest('button[data-tab]');
    if (!b) return;
    state.tab = b.dataset.tab;
    renderDrawer();
  });
  function table(head, rows) {
    const t = el('table');
    const tr = el('tr');
    head.forEach((h) => tr.appendChild(el('th', null, h)));
    t.appendChild(tr);
    rows.forEach((r) => t.appendChild(r));
    return t;
  }
  function row(cells) {
    const tr = el('tr');
    cells.forEach((c) => {
      const td = el('td');
      if (c instanceof Node) td.appendChild(c); else td.textContent = c === undefined || c === null ? '' : String(c);
      tr.appendChild(td);
    });
    return tr;
  }
  function chip(v) {
    const c = el('span', { class: 'chip v-' + v });
    c.appendChild(el('span', { class: 'dot' }));
    c.appendChild(document.createTextNode(v));
    return c;
  }
  function openButton(g) {
    const b = el('button', { type: 'button', class: 'open', 'data-open': D.graphs[g].path }, 'Open ' + D.graphs[g].path);
    b.addEventListener('click', () => openGraph(g));
    return b;
  }

  function renderDrawer() {
    const s = state.selected;
    if (!s) return;
    const gr = D.graphs[s.g], n = gr.nodes[s.i];
    drawer.hidden = false;
    drawer.setAttribute('data-selected', nodeId(s.g, s.i));
    $('drawer-op').textContent = n.op + (n.d ? '  (' + n.d + ')' : '');
    $('drawer-name').textContent = n.n || '(unnamed)';
    $('drawer-id').textContent = nodeId(s.g, s.i);
    const subs = $('drawer-subs');
    clear(subs);
    (n.s || []).forEach((g) => subs.appendChild(openButton(g)));
    if (n.f !== undefined) subs.appendChild(openButton(n.f));
    document.querySelectorAll('.tabs button').forEach((b) => b.setAttribute('aria-selected', String(b.dataset.tab === state.tab)));
    const body = $('drawer-body');
    clear(body);
    body.setAttribute('data-tab', state.tab);
    if (state.tab === 'attributes') {
      if (!n.a || !n.a.length) body.appendChild(el('p', { class: 'empty' }, 'No attributes.'));
      else body.appendChild(table(['Name', 'Value'], n.a.map(([name, value, graphs]) => {
        if (!graphs.length) return row([name, value]);
        const span = el('span');
        graphs.forEach((g) => span.appendChild(openButton(g)));
        return row([name, span]);
      })));
    } else if (state.tab === 'io') {
      const ioRows = (list) => list.map((t, j) => {
        if (t < 0) return row(['(omitted)', '', '', '']);
        const x = gr.tensors[t];
        return row([x[0], x[1], x[2], x[3] === 'initializer' ? 'initializer' : x[3]]);
      });
      body.appendChild(el('h4', null, 'Inputs'));
      body.appendChild(table(['Name', 'Type', 'Shape', 'Origin'], ioRows(n.i)));
      body.appendChild(el('h4', null, 'Outputs'));
      body.appendChild(table(['Name', 'Type', 'Shape', 'Origin'], ioRows(n.o)));
      if (n.ii) {
        body.appendChild(el('h4', null, 'Read by its subgraphs'));
        body.appendChild(table(['Name', 'Type', 'Shape', 'Origin'], ioRows(n.ii)));
      }
    } else if (state.tab === 'runtimes') {
      const entries = D.kb.ops[n.op];
      if (n.f !== undefined) body.appendChild(el('p', null, 'A local function of this model: TensorRT imports its body node by node (open it to see each node), unless a plugin of the same name is registered.'));
      else if (n.d && n.d !== 'ai.onnx') body.appendChild(el('p', null, 'Custom domain ' + n.d + ': the TensorRT ONNX parser has no importer for it; it needs a plugin.'));
      if (!entries && !n.d) body.appendChild(el('p', null, 'No TensorRT release lists ' + n.op + '.'));
      const prec = D.precisions[state.prec];
      const rows = [];
      for (let r = R - 1; r >= 0; r--) {
        const e = entries ? entries[r] : -1;
        const x = e >= 0 ? D.kb.entries[e] : null;
        const det = detailOf(n, r, state.prec);
        const tr = row([D.releases[r].name, x ? x[0] : 'absent', x ? (x[1] || 'not stated') : '',
          chip(det ? D.verdicts[det[0]] : 'UNKNOWN'), x ? [x[2], x[3], x[4]].filter(Boolean).join(' \u2014 ') : '']);
        tr.setAttribute('data-release', D.releases[r].name);
        if (r === state.rel) tr.className = 'current';
        tr.children[0].className = tr.children[1].className = tr.children[3].className = 'nw';
        tr.children[4].className = 'small';
        rows.push(tr);
      }
      body.appendChild(table(['Release', 'Status', 'Precisions', 'At ' + (PREC_LABEL[prec] || prec), 'Rules and notes'], rows));
      const cur = body.querySelector('tr.current');
      if (cur) cur.scrollIntoView({ block: 'center' });
    } else if (state.tab === 'engine' && E) {
      renderEngineTab(body, s.g, s.i);
    } else {
      const det = detailOf(n);
      const v = D.verdicts[det[0]];
      const head = el('p');
      head.appendChild(chip(v));
      head.appendChild(document.createTextNode('  TensorRT ' + D.releases[state.rel].name + ', ' + (PREC_LABEL[D.precisions[state.prec]]) +
        (det[1] && det[1] !== '-' ? '; runs at ' + det[1] : '')));
      body.appendChild(head);
      body.appendChild(el('h4', null, 'Reasons'));
      if (!det[2].length) body.appendChild(el('p', { class: 'empty' }, 'None: every fact holds.'));
      det[2].forEach((ri) => {
        const [rule, msg, src] = D.reasons[ri];
        const box = el('div', { class: 'reason' });
        box.appendChild(el('div', { class: 'rule' }, D.strings[rule]));
        box.appendChild(el('div', { class: 'message' }, D.strings[msg]));
        if (D.strings[src]) box.appendChild(el('div', { class: 'source' }, D.strings[src]));
        body.appendChild(box);
      });
      body.appendChild(el('h4', null, 'Hints'));
      if (!det[3].length) body.appendChild(el('p', { class: 'empty' }, 'None.'));
      else {
        const ul = el('ul');
        det[3].forEach((h) => ul.appendChild(el('li', null, D.strings[h])));
        body.appendChild(ul);
      }
      const notes = D.notes[runtimeIndex(state.rel, state.prec)] || [];
      if (notes.length) {
        body.appendChild(el('h4', null, 'Runtime notes'));
        const ul = el('ul');
        notes.forEach((h) => ul.appendChild(el('li', null, D.strings[h])));
        body.appendChild(ul);
      }
    }
  }

  function renderEngineTab(body, g, i) {
    const x = engineOf(g, i);
    if (!x) { body.appendChild(el('p', { class: 'empty' }, 'The engine holds no record of this node.')); return; }
    const L = layerOf(x), van = E.vanished_names[x[2]];
    if (van) body.appendChild(el('p', { class: 'vanished', 'data-vanished': van }, VANISHED_LABEL[van]));
    if (L) {
      const lat = nodeLatency(x);
      const layerCell = el('span', { 'data-engine-layer': L[0] }, L[0]);
      const rows = [
        row(['Layer', layerCell]),
        row(['Found by', MATCH_LABEL[E.match_names[x[1]]] || E.match_names[x[1]]]),
        row(['Layer type', L[1]]),
        row(['Precision run', L[2] || 'not recorded']),
        row(['Latency', msText(lat.ms) + (layerNodes[x[0][0]].length > 1 ? ' (the whole fused layer)' : '')]),
        row(['Share of time', pctText(lat.pct)]),
      ];
      if (L[5]) rows.push(row(['Tactic', L[5]]));
      if (x[0].length > 1) rows.push(row(['Also in', x[0].slice(1).map((l) => E.layers[l][0]).join('; ')]));
      const t = table(['', ''], rows);
      t.setAttribute('data-engine', 'layer');
      body.appendChild(t);
      const others = layerNodes[x[0][0]].filter(([og, oi]) => og !== g || oi !== i);
      body.appendChild(el('h4', null, 'Fused with ' + others.length + ' other node' + (others.length === 1 ? '' : 's')));
      if (others.length) {
        const box = el('div', { class: 'neighbours' });
        const MAX = 100;
        others.slice(0, MAX).forEach(([og, oi]) => {
          const o = D.graphs[og].nodes[oi];
          const b = el('button', { type: 'button', 'data-target': nodeId(og, oi) }, o.op + ' ' + (o.n || '#' + o.ix));
          b.addEventListener('click', () => reveal(og, oi, true));
          box.appendChild(b);
        });
        if (others.length > MAX) box.appendChild(el('span', null, '\u2026 and ' + (others.length - MAX) + ' more'));
        body.appendChild(box);
      }
    } else if (x[3] >= 0) {
      body.appendChild(el('p', null, 'Read by layer ' + E.layers[x[3]][0] + '.'));
    }
    // Beside the measurement, check's prediction for the engine's runtime.
    if (E.release >= 0) {
      const det = detailOf(D.graphs[g].nodes[i], E.release, E.precision);
      body.appendChild(el('h4', null, 'Predicted by check (TensorRT ' + D.releases[E.release].name + ', ' +
        (PREC_LABEL[D.precisions[E.precision]] || '') + ')'));
      const p = el('p');
      p.appendChild(chip(D.verdicts[det[0]]));
      if (det[1] && det[1] !== '-') p.appendChild(document.createTextNode('  runs at ' + det[1]));
      body.appendChild(p);
    }
    E.disagreements.filter((d) => d[0] === g && d[1] === i).forEach((d) => {
      const box = el('div', { class: 'disagreement', 'data-kind': d[2] });
      box.appendChild(el('div', { class: 'rule' }, d[2]));
      box.appendChild(el('div', null, d[6]));
      body.appendChild(box);
    });
  }

  // ---- search ------------------------------------------------------------
  const search = $('search'), results = $('search-results');
  let searchTimer = 0;
  function runSearch() {
    const q = search.value.trim().toLowerCase();
    clear(results);
    if (!q) { results.hidden = true; return; }
    const hits = [];
    outer: for (let g = 0; g < D.graphs.length; g++) {
      const gr = D.graphs[g];
      const tensorHit = gr.tensors.map((t) => t[0].toLowerCase().indexOf(q) >= 0);
      for (let i = 0; i < gr.nodes.length; i++) {
        const n = gr.nodes[i];
        let why = null;
        if (n.n.toLowerCase().indexOf(q) >= 0 || n.op.toLowerCase() === q) why = '';
        else {
          const t = n.o.find((x) => x >= 0 && tensorHit[x]) ?? n.i.find((x) => x >= 0 && tensorHit[x]);
          if (t !== undefined) why = 'tensor ' + gr.tensors[t][0];
        }
        if (why !== null) { hits.push([g, i, why]); if (hits.length >= 100) break outer; }
      }
    }
    if (!hits.length) results.appendChild(el('li', { class: 'none' }, 'No node or tensor matches.'));
    hits.forEach(([g, i, why], j) => {
      const n = D.graphs[g].nodes[i];
      const li = el('li', { 'data-target': nodeId(g, i) }, n.op + ' ' + (n.n || '#' + n.ix));
      if (j === 0) li.classList.add('active');
      li.appendChild(el('span', { class: 'where' }, [why, g ? graphLabel(g) : ''].filter(Boolean).join(' \u00b7 ')));
      li.addEventListener('mousedown', (ev) => { ev.preventDefault(); results.hidden = true; reveal(g, i, true); });
      results.appendChild(li);
    });
    results.hidden = false;
    results._hits = hits;
  }
  search.addEventListener('input', () => { clearTimeout(searchTimer); searchTimer = setTimeout(runSearch, 120); });
  search.addEventListener('keydown', (ev) => {
    if (ev.key === 'Enter') {
      clearTimeout(searchTimer);
      runSearch();
      const hits = results._hits || [];
      if (hits.length) { results.hidden = true; reveal(hits[0][0], hits[0][1], true); }
    } else if (ev.key === 'Escape') { results.hidden = true; }
  });
  search.addEventListener('blur', () => { results.hidden = true; });

  // The drawer opens under the header, so the runtime selector stays usable.
  function placeDrawer() { drawer.style.top = $('top').offsetHeight + 'px'; }
  window.addEventListener('resize', () => { placeDrawer(); applyView(); });
  placeDrawer();
  document.addEventListener('keydown', (ev) => {
    if (ev.target === search) return;
    if (ev.key === 'Escape' && !drawer.hidden) $('drawer-close').click();
    else if (ev.key === 'f') fit();
  });

  // ---- start -------------------------------------------------------------
  curDetail = detailsFor(runtimeIndex(state.rel, state.prec));
  renderSummary();
  renderPartition();
  renderEngine();
  enterGraph(0);
  // A scripting hook: reveal('<graph>/<index>') opens the node's graph and
  // region, centres it and opens its drawer.
  window.trtlens = {
    data: D,
    reveal: function (id) {
      const cut = id.lastIndexOf('/');
      const path = id.slice(0, cut), ix = +id.slice(cut + 1);
      const g = D.graphs.findIndex((x) => x.path === path);
      if (g < 0) return false;
      const i = D.graphs[g].nodes.findIndex((n) => n.ix === ix);
      if (i < 0) return false;
      reveal(g, i, true);
      return true;
    },
  };
  document.body.setAttribute('data-ready', 'true');
  performance.mark('trtlens-ready');  // time-to-interactive, read by bench/report
})();
