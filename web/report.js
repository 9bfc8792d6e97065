// trtlens report page. Plain JS, no libraries, nothing fetched.
// Every string that comes from the model reaches the DOM through textContent
// or setAttribute, never through HTML parsing.
(function () {
  'use strict';
  const SVG = 'http://www.w3.org/2000/svg';
  const D = JSON.parse(document.getElementById('trtlens-data').textContent);
  const R = D.releases.length;
  const TG = D.target || null;  // report --target: the device, and a second set of runtimes narrowed to it
  const ITEM_NODE = 0, ITEM_INPUT = 1, ITEM_OUTPUT = 2, ITEM_FROM = 3, ITEM_TO = 4;
  const BADGE = { SUPPORTED: '\u2713', FALLBACK: '!', IMPLICIT_CAST: '!', UNSUPPORTED: '\u2715', UNKNOWN: '?' };
  const VERDICT_LABEL = { SUPPORTED: 'supported', FALLBACK: 'fallback', IMPLICIT_CAST: 'implicit cast',
    UNSUPPORTED: 'unsupported', UNKNOWN: 'unknown' };
  const PREC_LABEL = { fp32: 'FP32', fp16: 'FP16', bf16: 'BF16', int8: 'INT8', fp8: 'FP8', best: 'best' };
  // Worst last: what a roll-up, an overview cell or a region reports.
  const SEVERITY = { SUPPORTED: 0, IMPLICIT_CAST: 1, FALLBACK: 2, UNKNOWN: 3, UNSUPPORTED: 4 };
  const BY_SEVERITY = ['SUPPORTED', 'IMPLICIT_CAST', 'FALLBACK', 'UNKNOWN', 'UNSUPPORTED'];
  const COLOR = { SUPPORTED: '#1a7f37', FALLBACK: '#bf8700', IMPLICIT_CAST: '#bf8700', UNSUPPORTED: '#cf222e', UNKNOWN: '#8c959f' };

  const $ = (id) => document.getElementById(id);
  const regionSel = document.querySelector('select[name="region"]');
  const svg = $('canvas'), viewport = $('viewport'), edgeLayer = $('edges'), itemLayer = $('items');

  const state = {
    rel: D.initial[0], prec: D.initial[1], tgt: D.initial[2] || 0,
    stack: [0],          // graphs entered, main first
    region: 0,
    selected: null,      // {g, i}
    tab: 'attributes',
    view: { x: 0, y: 0, k: 1 },
    fold: true,          // Constant/Identity-of-constant nodes drawn inside their reader
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
  // Cut in the middle, as Netron does: exporters' names differ at their ends
  // (/features/…/attn/MatMul), so the first path segment and as many of the last as fit stay.
  function clipMid(s, n) {
    s = String(s);
    if (s.length <= n) return s;
    const parts = s.split('/');
    if (parts.length > 2) {
      const head = parts[0] || '/' + parts[1], from = parts[0] ? 1 : 2;
      let best = null;
      for (let k = from; k < parts.length; k++) {
        const cand = head + '/\u2026/' + parts.slice(k).join('/');
        if (cand.length <= n) { best = cand; break; }
      }
      if (best) return best;
    }
    const tail = Math.ceil((n - 1) * 0.6), head = Math.max(0, n - 1 - tail);
    return s.slice(0, head) + '\u2026' + s.slice(s.length - tail);
  }

  // ---- verdicts ----------------------------------------------------------
  // The target's runtimes follow the plain ones (report_data.cpp runtime_index).
  function runtimeIndex(rel, prec, tgt) { return (tgt === undefined ? state.tgt : tgt) * R * D.precisions.length + prec * R + rel; }
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
  function detailOf(node, rel, prec, tgt) {
    if (rel === undefined) return D.details[curDetail[node.p]];
    const k = runtimeIndex(rel, prec, tgt), rle = D.profiles[node.p];
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
  // One entry per axis of the runtime: its <select name> in #runtime, the state
  // field it sets and its options. A new axis is one entry here (and its factor
  // in runtimeIndex); every change goes through applyRuntime.
  const AXES = [
    { name: 'release', key: 'rel', options: D.releases.map((r) => [r.name, r.name + (r.basis === 'derived' ? ' *' : '')]),
      title: 'Releases marked * are derived from changelogs rather than a published support table' },
    { name: 'precision', key: 'prec', options: D.precisions.map((p) => [p, PREC_LABEL[p] || p]) },
  ];
  if (TG) {
    AXES.push({ name: 'target', key: 'tgt', options: [['', 'none'], [TG.name, TG.name]],
      title: TG.label + ': its kernels\' precisions' + (TG.dla ? ', and which nodes its DLA core runs' : '') +
        '; on it, the releases greyed out have no verdicts' });
    $('target-axis').hidden = false;
  }
  AXES.forEach((a) => {
    const sel = a.sel = document.querySelector('#runtime select[name="' + a.name + '"]');
    a.options.forEach(([value, label]) => sel.appendChild(el('option', { value: value }, label)));
    if (a.title) sel.title = a.title;
    sel.selectedIndex = state[a.key];
    sel.addEventListener('change', () => { state[a.key] = sel.selectedIndex; applyRuntime(); });
  });
  // On the target, only the releases it runs are offered: leaving one moves to the release the CLI takes on it
  // without --trt (a Jetson's newest JetPack's), else the newest it runs.
  function syncTarget() {
    if (!TG) return;
    const rel = AXES[0].sel;
    for (let r = 0; r < R; r++) rel.options[r].disabled = state.tgt === 1 && !TG.runs[r];
    if (state.tgt === 1 && !TG.runs[state.rel]) {
      const runs = TG.default_release >= 0 && TG.runs[TG.default_release] ? TG.default_release : TG.runs.lastIndexOf(true);
      if (runs >= 0) state.rel = rel.selectedIndex = runs;
    }
  }
  syncTarget();
  $('model-title').title = [D.title, D.model.producer, 'IR ' + D.model.ir_version,
    'opsets ' + D.model.opsets.map((o) => (o[0] || 'ai.onnx') + ' ' + o[1]).join(', '), D.model.nodes + ' nodes'].filter(Boolean).join(' \u00b7 ');

  function applyRuntime() {
    syncTarget();
    syncDlaControls();
    curDetail = detailsFor(runtimeIndex(state.rel, state.prec));
    computeRollup();
    for (const r of rendered) setVerdict(r.el, verdictOf(D.graphs[r.g].nodes[r.i]), D.graphs[r.g].nodes[r.i]);
    renderSummary();
    renderCrumbs();
    renderRegionBar(true);
    drawMinimap(true);
    if (state.selected) renderDrawer();
    writeAnchor();
  }
  function setVerdict(e, v, n) {
    e.setAttribute('data-verdict', v);
    e.querySelector('.badge text').textContent = BADGE[v];
    e.querySelector('.badge title').textContent = 'TensorRT: ' + VERDICT_LABEL[v];
    setDla(e, n);
    const roll = e.querySelector('.rollup');
    const worst = bodyWorst(n);
    if (worst > 0) {
      const w = BY_SEVERITY[worst];
      e.setAttribute('data-rollup', w);
      roll.setAttribute('data-rollup', w);
      roll.hidden = false;
      roll.querySelector('title').textContent = 'Inside its bodies: ' + countsText(bodyCounts(n));
      roll.querySelector('text').textContent = BADGE[w];
    } else if (roll) {
      e.removeAttribute('data-rollup');
      roll.hidden = true;
    }
  }

  // A DLA target: where the node runs (the detail's fifth element), as a pill on the box's top border.
  const DLA_LABEL = { DLA: 'DLA', GPU_FALLBACK: 'GPU fallback', UNSUPPORTED: 'unsupported' };
  function dlaOf(n) { const det = n && D.details[curDetail[n.p]]; return det && det[4] ? det[4] : null; }
  // DLA, GPU_FALLBACK or UNSUPPORTED at the selected runtime; null off a DLA target, in bodies, for constants.
  function placeOf(n) { const d = dlaOf(n); return d ? d[0] : null; }
  const DLA = !!(TG && TG.dla);
  function onDla() { return DLA && state.tgt === 1; }
  function setDla(e, n) {
    const pill = e.querySelector('.dla');
    if (!pill) return;
    const d = dlaOf(n);
    pill.toggleAttribute('hidden', !d || d[0] === 'UNSUPPORTED');  // an SVG element has no .hidden
    if (!d) { e.removeAttribute('data-dla'); return; }
    e.setAttribute('data-dla', d[0]);
    pill.setAttribute('data-dla', d[0]);
    pill.querySelector('text').textContent = d[0] === 'DLA' ? 'DLA' : 'GPU';
    pill.querySelector('title').textContent = TG.name + ': ' + DLA_LABEL[d[0]] + (D.strings[d[1]] ? ' \u2014 ' + D.strings[d[1]] : '');
  }

  // ---- roll-up: what the bodies of If/Loop/Scan nodes and function calls hold ----
  // rollCounts[g]: verdict counts over graph g's nodes and every body inside them.
  let rollCounts = [];
  function computeRollup() {
    rollCounts = D.graphs.map(() => null);
    const visiting = new Set();
    function of(g) {
      if (rollCounts[g]) return rollCounts[g];
      const c = BY_SEVERITY.map(() => 0);
      if (visiting.has(g)) return c;  // a function calling itself: counted once
      visiting.add(g);
      for (const n of D.graphs[g].nodes) {
        c[SEVERITY[verdictOf(n)]]++;
        bodiesOf(n).forEach((b) => of(b).forEach((x, j) => { c[j] += x; }));
      }
      visiting.delete(g);
      return (rollCounts[g] = c);
    }
    D.graphs.forEach((_, g) => of(g));
  }
  function bodiesOf(n) { return (n.s || []).concat(n.f !== undefined ? [n.f] : []); }
  function bodyCounts(n) {
    const c = BY_SEVERITY.map(() => 0);
    bodiesOf(n).forEach((b) => rollCounts[b].forEach((x, j) => { c[j] += x; }));
    return c;
  }
  function worstOf(c) { for (let j = c.length - 1; j > 0; j--) if (c[j]) return j; return 0; }
  function bodyWorst(n) { return n && (n.s || n.f !== undefined) ? worstOf(bodyCounts(n)) : 0; }
  function countsText(c) {
    const parts = [];
    for (let j = c.length - 1; j >= 0; j--) if (c[j]) parts.push(c[j] + ' ' + VERDICT_LABEL[BY_SEVERITY[j]]);
    return parts.join(', ') || 'nothing';
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
      b.addEventListener('click', () => reveal(g, i, true, 'verdict'));
      li.appendChild(b);
      list.appendChild(li);
    }
    if (bad.length > MAX) list.appendChild(el('li', null, '\u2026 and ' + (bad.length - MAX) + ' more (use search)'));
    renderDlaSummary();
    computeProblems();
  }

  // ---- DLA target: the placement's summary, as check --format json's `dla` gives it ----
  // D.dla[runtime]: {release, dla_nodes, gpu_fallback_nodes, unsupported_nodes, dla_macs, total_macs,
  // macs_unknown_nodes, transitions, loadables, max_loadables} (the analysis's numbers; the page computes none).
  function plural(k, one, many) { return k + ' ' + (k === 1 ? one : (many || one + 's')); }
  function renderDlaSummary() {
    const box = $('dla-summary');
    const S = onDla() && D.dla ? D.dla[runtimeIndex(state.rel, state.prec)] : null;
    box.hidden = !S;
    clear(box);
    if (!S) return;
    const placed = S.dla_nodes + S.gpu_fallback_nodes + S.unsupported_nodes;
    const pct = (a, b) => (b > 0 ? 100 * a / b : 0).toFixed(1) + '%';
    const part = (field, value, text, cls) => {
      if (box.querySelector('.part')) box.appendChild(document.createTextNode(' \u00b7 '));
      const e = el('span', { class: 'part' + (cls ? ' ' + cls : ''), 'data-field': field, 'data-value': value }, text);
      box.appendChild(e);
      return e;
    };
    box.appendChild(el('b', null, TG.name + ' (TensorRT ' + S.release + ' DLA rules): '));
    part('dla_nodes', S.dla_nodes, S.dla_nodes + ' of ' + plural(placed, 'node') + ' on the DLA (' + pct(S.dla_nodes, placed) + ')')
      .title = 'Constants the builder folds are not counted';
    // Some nodes' multiply-accumulates unknown (dynamic shapes): a share of a lower bound would mislead, as would
    // a 0% where none is known.
    if (S.macs_unknown_nodes > 0) part('dla_macs', S.dla_macs, S.total_macs > 0
      ? 'MACs on the DLA: ' + S.dla_macs.toLocaleString('en-US') + ' of at least ' + S.total_macs.toLocaleString('en-US') +
        ' known; ' + plural(S.macs_unknown_nodes, "node's MACs", "nodes' MACs") + ' unknown'
      : 'MACs unknown (' + plural(S.macs_unknown_nodes, 'node') + ' with dynamic shapes)')
      .title = 'Conv, ConvTranspose, Gemm or MatMul with dynamic shapes: pass --shapes for a share';
    else if (S.total_macs > 0) part('dla_macs', S.dla_macs, pct(S.dla_macs, S.total_macs) + ' of MACs').title =
      S.dla_macs.toLocaleString('en-US') + ' of ' + S.total_macs.toLocaleString('en-US') +
      ' multiply-accumulates (Conv, ConvTranspose, Gemm, MatMul with static shapes)';
    else part('dla_macs', S.dla_macs, 'MACs unknown').title = 'No Conv, ConvTranspose, Gemm or MatMul with static shapes: no share of MACs';
    const gpu = part('gpu_fallback_nodes', S.gpu_fallback_nodes, plural(S.gpu_fallback_nodes, 'GPU fallback', 'GPU fallbacks'),
      S.gpu_fallback_nodes ? 'warn' : '');
    if (S.gpu_fallback_nodes) {
      // A way to them: the problem keys then step through the nodes that leave the DLA.
      gpu.setAttribute('role', 'button');
      gpu.tabIndex = 0;
      gpu.title = 'Go to the first node that falls back to the GPU (then n / p)';
      const go = () => {
        problemSel.value = 'GPU_FALLBACK';
        computeProblems();
        renderRegionBar(true);
        if (problems.length) reveal(problems[0][0], problems[0][1], true, 'verdict');
      };
      gpu.addEventListener('click', go);
      gpu.addEventListener('keydown', (ev) => { if (ev.key === 'Enter') go(); });
    }
    if (S.unsupported_nodes) part('unsupported_nodes', S.unsupported_nodes, S.unsupported_nodes + ' unsupported', 'bad');
    part('transitions', S.transitions, plural(S.transitions, 'DLA\u2194GPU transition')).title =
      'Data edges between a DLA node and a GPU node: each is a reformat';
    const over = S.loadables > S.max_loadables;
    part('loadables', S.loadables, plural(S.loadables, 'DLA loadable') + ' (' + (over ? 'more than the ' : 'at most ') +
      S.max_loadables + ' per core)', over ? 'bad' : '').title = 'Groups of DLA nodes joined by edges; TensorRT loads at most ' +
      S.max_loadables + ' per DLA core' + (over ? ': it cannot load them all at once' : '');
  }

  // ---- next/previous problem (n / p) -----------------------------------------
  // Problems in drawing order: graphs as listed (main first), then region, then top to bottom.
  const problemSel = document.querySelector('select[name="problem-kind"]');
  let problems = [];
  // On a DLA target, GPU_FALLBACK (a node the DLA core does not run) is a kind of problem too.
  if (DLA) {
    clear(problemSel);
    [['UNSUPPORTED', 'unsupported'], ['UNSUPPORTED,UNKNOWN', 'unsupported or unknown'],
      ['UNSUPPORTED,UNKNOWN,GPU_FALLBACK', 'unsupported, unknown or GPU fallback'], ['GPU_FALLBACK', 'GPU fallback (DLA)'],
      ['UNSUPPORTED,UNKNOWN,FALLBACK,IMPLICIT_CAST,GPU_FALLBACK', 'any but supported on the DLA']]
      .forEach(([v, label]) => problemSel.appendChild(el('option', { value: v }, label)));
    problemSel.value = 'UNSUPPORTED,UNKNOWN,GPU_FALLBACK';
  }
  function problemKinds() { return problemSel.value.split(','); }
  function isProblem(n, kinds) {
    return kinds.indexOf(verdictOf(n)) >= 0 || (DLA && kinds.indexOf('GPU_FALLBACK') >= 0 && placeOf(n) === 'GPU_FALLBACK');
  }
  function computeProblems() {
    const kinds = problemKinds();
    problems = [];
    D.graphs.forEach((gr, g) => {
      const list = [];
      gr.nodes.forEach((n, i) => { if (isProblem(n, kinds)) list.push(i); });
      const y = (i) => { const n = gr.nodes[i]; return gr.regions[n.r].items[n.b][3]; };
      list.sort((a, b) => gr.nodes[a].r - gr.nodes[b].r || y(a) - y(b) || a - b);
      list.forEach((i) => problems.push([g, i]));
    });
    showProblemPos();
  }
  function problemIndex() {
    const s = state.selected;
    return s ? problems.findIndex(([g, i]) => g === s.g && i === s.i) : -1;
  }
  function showProblemPos() {
    const k = problemIndex();
    $('problem-pos').textContent = problems.length ? (k >= 0 ? (k + 1) + ' of ' + problems.length : problems.length + ' problem' +
      (problems.length === 1 ? '' : 's')) : 'no problems';
    document.querySelectorAll('#problems button').forEach((b) => { b.disabled = !problems.length; });
  }
  function gotoProblem(step) {
    if (!problems.length) return;
    let k = problemIndex();
    if (k < 0) {
      // From a node that is not a problem: the next one after the drawing's position, else the first.
      k = step > 0 ? -1 : 0;
    }
    k = (k + step + problems.length) % problems.length;
    reveal(problems[k][0], problems[k][1], true, 'verdict');
  }
  problemSel.addEventListener('change', () => { computeProblems(); renderRegionBar(true); });
  $('problems').addEventListener('click', (ev) => {
    const b = ev.target.closest('button');
    if (b) gotoProblem(b.dataset.act === 'next-problem' ? 1 : -1);
  });

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

  // Two drawings per region where nodes fold: with Constant/Identity-of-constant
  // nodes inside their reader (regions_folded, the default), and with every node.
  // regions_folded[r] is null where folding changes nothing in region r: both are regions[r].
  function foldedLayout(gr, r) { return gr.regions_folded[r] || gr.regions[r]; }
  function layoutOf(g, r) {
    const gr = D.graphs[g];
    const reg = state.fold && gr.regions_folded ? foldedLayout(gr, r) : gr.regions[r];
    return reg || { w: 0, h: 0, items: [], edges: [] };
  }
  function folding(g) { return state.fold && !!D.graphs[g].regions_folded; }
  // The node whose box shows node i: itself, or the node it is folded into.
  function drawnAt(g, i) { const n = D.graphs[g].nodes[i]; return folding(g) && n.fo !== undefined ? n.fo : i; }
  const foldedItems = {};  // g -> item of each node in the folded drawing
  const foldedIn = {};     // g -> {reader position: [folded node positions]}
  function itemIndex(g, i) {
    const gr = D.graphs[g];
    if (!folding(g)) return gr.nodes[i].b;
    let m = foldedItems[g];
    if (!m) {
      m = foldedItems[g] = new Int32Array(gr.nodes.length).fill(-1);
      gr.regions.forEach((_, r) => foldedLayout(gr, r).items.forEach((it, k) => { if (it[0] === ITEM_NODE) m[it[1]] = k; }));
    }
    return m[drawnAt(g, i)];
  }
  function foldedInto(g, i) {
    let m = foldedIn[g];
    if (!m) {
      m = foldedIn[g] = {};
      D.graphs[g].nodes.forEach((n, j) => { if (n.fo !== undefined) (m[n.fo] = m[n.fo] || []).push(j); });
    }
    return m[i] || [];
  }

  function renderRegion() {
    const g = curGraph(), gr = D.graphs[g];
    const reg = layoutOf(g, state.region);
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
        e.appendChild(sv('text', { class: 'name', x: 8, y: 30 }, clipMid(n.n || '#' + n.ix, Math.floor((w - 12) / 6.1))));
        if (subs) e.appendChild(sv('text', { class: 'sub', x: 8, y: 45 }, '\u2935 ' + (n.f !== undefined ? 'function' : subs > 1 ? subs + ' bodies' : 'body')));
        const badge = sv('g', { class: 'badge', transform: 'translate(' + (w - 11) + ',11)' });
        badge.appendChild(sv('title', null, 'TensorRT: ' + VERDICT_LABEL[v]));
        badge.appendChild(sv('circle', { r: 8 }));
        badge.appendChild(sv('text', null, BADGE[v]));
        e.appendChild(badge);
        if (TG && TG.dla && g === 0) {
          // On the top border at the left: clear of the name, the badges and the folded-constants mark.
          const pill = sv('g', { class: 'dla', transform: 'translate(6,-7)' });
          pill.appendChild(sv('title'));
          pill.appendChild(sv('rect', { width: 27, height: 11, rx: 5 }));
          pill.appendChild(sv('text', { x: 13.5, y: 6 }));
          e.appendChild(pill);
        }
        if (subs) {
          // The worst verdict inside its bodies, beside its own.
          const roll = sv('g', { class: 'rollup', transform: 'translate(' + (w - 29) + ',11)' });
          roll.appendChild(sv('title'));
          roll.appendChild(sv('circle', { r: 6 }));
          roll.appendChild(sv('text'));
          e.appendChild(roll);
        }
        if (folding(g)) {
          const k = foldedInto(g, ref).length;
          if (k) {
            e.setAttribute('data-folded', k);
            // Under the box's right corner: the box's two lines stay readable.
            e.appendChild(sv('text', { class: 'folded-mark', x: w - 2, y: h + 10 }, '+' + k + ' const'));
          }
        }
        setVerdict(e, v, n);
        ifrag.appendChild(e);
        rendered.push({ el: e, g: g, i: ref });
      } else if (kind === ITEM_INPUT || kind === ITEM_OUTPUT) {
        const t = gr.tensors[ref];
        const e = sv('g', { class: 'io ' + (kind === ITEM_INPUT ? 'input' : 'output'), transform: 'translate(' + x + ',' + y + ')', 'data-tensor': ref });
        e.appendChild(sv('rect', { width: w, height: h, rx: h / 2 }));
        e.appendChild(sv('text', { x: w / 2, y: h / 2 }, clipMid(t[0], Math.floor((w - 14) / 6.1))));
        ifrag.appendChild(e);
      } else {
        // The name is cut to the box (sized for it by the page's data), so neighbours never overlap.
        const where = ' (region ' + (extra + 1) + ')';
        const label = kind === ITEM_FROM ? '\u2191 ' + clipMid(gr.tensors[ref][0], Math.max(4, Math.floor((w - 14) / 6.3) - 2 - where.length)) + where
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
    drawMinimap(true);
  }

  // What a region holds: nodes, problems at the selected runtime, main op types.
  const regionOps = {};  // g -> per region: [node count, 'MatMul, Add, Reshape']
  function regionStats(g) {
    if (regionOps[g]) return regionOps[g];
    const gr = D.graphs[g];
    const ops = gr.regions.map(() => ({}));
    const counts = gr.regions.map(() => 0);
    gr.nodes.forEach((n) => {
      counts[n.r]++;
      if (n.op !== 'Constant' && n.op !== 'Identity') ops[n.r][n.op] = (ops[n.r][n.op] || 0) + 1;
    });
    return (regionOps[g] = counts.map((c, r) => [c, Object.keys(ops[r]).sort((a, b) => ops[r][b] - ops[r][a] || (a < b ? -1 : 1))
      .slice(0, 3).join(', ')]));
  }
  // Per region: verdict counts (by severity), nodes on the DLA and off it (a DLA target), problems of `kinds`.
  function regionVerdicts(g, kinds) {
    const gr = D.graphs[g];
    const c = gr.regions.map(() => ({ v: BY_SEVERITY.map(() => 0), dla: 0, gpu: 0, probs: 0 }));
    gr.nodes.forEach((n) => {
      const x = c[n.r], place = DLA ? placeOf(n) : null;
      x.v[SEVERITY[verdictOf(n)]]++;
      if (place === 'DLA') x.dla++;
      else if (place === 'GPU_FALLBACK') x.gpu++;
      if (isProblem(n, kinds)) x.probs++;
    });
    return c;
  }
  function regionLabel(g, r, x) {
    const gr = D.graphs[g], [count, ops] = regionStats(g)[r];
    const bad = x.v.slice();
    bad[0] = 0;
    return 'Region ' + (r + 1) + ' of ' + gr.regions.length + ' \u00b7 ' + count + ' nodes \u00b7 ' +
      (worstOf(bad) ? countsText(bad) : 'all supported') + (x.gpu ? ', ' + x.gpu + ' GPU fallback (DLA)' : '') +
      (ops ? ' \u00b7 ' + ops : '');
  }
  function renderRegionBar(relabel) {
    const g = curGraph(), gr = D.graphs[g];
    const bar = $('regionbar');
    bar.hidden = gr.regions.length < 2;
    overview.hidden = bar.hidden;
    if (bar.hidden) return;
    const fresh = regionSel.options.length !== gr.regions.length || regionSel.dataset.g !== String(g);
    if (fresh || relabel) {
      const vc = regionVerdicts(g, problemKinds());
      if (fresh) {
        clear(regionSel);
        clear(overview);
        gr.regions.forEach((_, r) => {
          regionSel.appendChild(el('option', { value: r }));
          overview.appendChild(el('button', { type: 'button', 'data-region': r }));
        });
        regionSel.dataset.g = String(g);
      }
      gr.regions.forEach((_, r) => {
        const label = regionLabel(g, r, vc[r]);
        regionSel.options[r].textContent = label;
        // The overview: one cell per region, coloured by its worst verdict, with its problem count.
        const cell = overview.children[r];
        const worst = BY_SEVERITY[worstOf(vc[r].v)];
        const probs = vc[r].probs;
        cell.setAttribute('data-worst', worst);
        // Where the region runs on a DLA target: drawn when the minimap is coloured by placement.
        if (vc[r].gpu || vc[r].dla) cell.setAttribute('data-place', vc[r].gpu ? 'GPU_FALLBACK' : 'DLA');
        else cell.removeAttribute('data-place');
        cell.textContent = probs ? String(probs) : '';
        cell.title = label;
      });
    }
    regionSel.selectedIndex = state.region;
    Array.prototype.forEach.call(overview.children, (c, r) => c.classList.toggle('current', r === state.region));
  }
  const overview = $('overview');
  overview.addEventListener('click', (ev) => {
    const b = ev.target.closest('button[data-region]');
    if (b) showRegion(+b.dataset.region, true);
  });

  // ---- minimap: the region on screen, coloured by verdict, and the visible part ----
  // On a DLA target it is coloured by placement (the select above it offers verdicts again):
  // where the model leaves the DLA stands out, as problems do.
  const mini = $('minimap-canvas');
  const miniColorSel = document.querySelector('select[name="minimap-color"]');
  const PLACE_COLOR = { DLA: '#54aeff', GPU_FALLBACK: COLOR.FALLBACK, none: '#d0d7de' };
  function miniMode() { return onDla() && miniColorSel.value === 'placement' ? 'placement' : 'verdict'; }
  // The minimap's colour of node n and whether it is drawn last (at least 4 px), or null: the usual green.
  function miniColor(n, mode) {
    const v = verdictOf(n);
    if (mode === 'verdict') return v === 'SUPPORTED' ? null : [COLOR[v], true];
    if (v === 'UNSUPPORTED') return [COLOR[v], true];
    const place = placeOf(n);
    return place === 'GPU_FALLBACK' ? [PLACE_COLOR.GPU_FALLBACK, true] : [PLACE_COLOR[place === 'DLA' ? 'DLA' : 'none'], false];
  }
  miniColorSel.addEventListener('change', () => { syncDlaControls(); drawMinimap(true); });
  let miniCache = null;  // the drawing without the view rectangle: {img, k, ox, oy}
  function drawMinimap(rebuild) {
    const g = curGraph(), gr = D.graphs[g], reg = layoutOf(g, state.region);
    const W = mini.width, H = mini.height;
    if (rebuild || !miniCache) {
      const off = document.createElement('canvas');
      off.width = W; off.height = H;
      const c = off.getContext('2d');
      const k = reg.w && reg.h ? Math.min((W - 8) / reg.w, (H - 8) / reg.h) : 1;
      const ox = (W - reg.w * k) / 2, oy = (H - reg.h * k) / 2;
      c.fillStyle = '#fff';
      c.fillRect(0, 0, W, H);
      // Problems (and GPU fallbacks) last and at least 4 px, so a red node stays visible in a tall region.
      const late = [], mode = miniMode();
      for (const it of reg.items) {
        const col = it[0] === ITEM_NODE ? miniColor(gr.nodes[it[1]], mode) : null;
        if (col && col[1]) { late.push([it, col[0]]); continue; }
        c.fillStyle = col ? col[0] : it[0] === ITEM_NODE ? '#8fd19e' : '#afb8c1';
        c.fillRect(ox + (it[2] - it[4] / 2) * k, oy + (it[3] - it[5] / 2) * k, Math.max(1, it[4] * k), Math.max(1, it[5] * k));
      }
      for (const [it, color] of late) {
        c.fillStyle = color;
        const w = Math.max(4, it[4] * k), h = Math.max(4, it[5] * k);
        c.fillRect(ox + it[2] * k - w / 2, oy + it[3] * k - h / 2, w, h);
      }
      miniCache = { img: off, k: k, ox: ox, oy: oy };
    }
    const c = mini.getContext('2d'), m = miniCache, v = state.view;
    c.clearRect(0, 0, W, H);
    c.drawImage(m.img, 0, 0);
    const sw = svg.clientWidth || 800, sh = svg.clientHeight || 600;
    c.strokeStyle = '#0969da';
    c.lineWidth = 1.5;
    c.strokeRect(m.ox - v.x / v.k * m.k, m.oy - v.y / v.k * m.k, sw / v.k * m.k, sh / v.k * m.k);
  }
  let miniDrag = false;
  function miniMove(ev) {
    const r = mini.getBoundingClientRect(), m = miniCache;
    if (!m) return;
    const gx = (ev.clientX - r.left - m.ox) / m.k, gy = (ev.clientY - r.top - m.oy) / m.k;
    const v = state.view;
    v.x = (svg.clientWidth || 800) / 2 - gx * v.k;
    v.y = (svg.clientHeight || 600) / 2 - gy * v.k;
    applyView();
  }
  mini.addEventListener('pointerdown', (ev) => { miniDrag = true; miniMove(ev); ev.preventDefault(); });
  window.addEventListener('pointermove', (ev) => { if (miniDrag) miniMove(ev); });
  window.addEventListener('pointerup', () => { miniDrag = false; });
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
      // What the graph holds, its bodies included.
      const worst = BY_SEVERITY[worstOf(rollCounts[g])];
      b.setAttribute('data-rollup', worst);
      b.title = graphLabel(g) + ': ' + countsText(rollCounts[g]);
      b.insertBefore(el('span', { class: 'dot v-' + worst }), b.firstChild);
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
    // The drawer and the tooltip belong to a node of the graph being left.
    drawer.hidden = true;
    tip.hidden = true;
    state.selected = null;
    writeAnchor();
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
  let miniFrame = 0;
  function applyView() {
    const v = state.view;
    viewport.setAttribute('transform', 'translate(' + v.x + ',' + v.y + ') scale(' + v.k + ')');
    if (!miniFrame) miniFrame = requestAnimationFrame(() => { miniFrame = 0; drawMinimap(false); });
  }
  function fit() {
    const reg = layoutOf(curGraph(), state.region);
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
    const reg = layoutOf(curGraph(), state.region);
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
    else if (act === 'export-svg') exportView('svg');
    else if (act === 'export-png') exportView('png');
  });
  const foldBox = $('show-folded');
  foldBox.addEventListener('change', () => {
    state.fold = !foldBox.checked;
    renderRegion();
    if (state.selected && state.selected.g === curGraph()) {
      // Keep the selected node in view in the other drawing (it may fold into another region).
      reveal(state.selected.g, state.selected.i, false);
    } else firstView();
  });

  // ---- export: the view on screen, as a standalone SVG or a PNG ------------------
  function viewSvgText() {
    const W = svg.clientWidth || 800, H = svg.clientHeight || 600;
    const copy = svg.cloneNode(true);
    copy.setAttribute('width', W);
    copy.setAttribute('height', H);
    copy.setAttribute('viewBox', '0 0 ' + W + ' ' + H);
    copy.setAttribute('xmlns', SVG);
    copy.querySelectorAll('.edge-hit').forEach((e) => e.remove());
    // The page's rules travel with the drawing (the variables of :root apply to the svg root there).
    const style = document.createElementNS(SVG, 'style');
    style.textContent = document.querySelector('head style').textContent;
    copy.insertBefore(style, copy.firstChild);
    const bg = document.createElementNS(SVG, 'rect');
    bg.setAttribute('width', W); bg.setAttribute('height', H); bg.setAttribute('fill', '#f6f8fa');
    copy.insertBefore(bg, style.nextSibling);
    return new XMLSerializer().serializeToString(copy);
  }
  function exportName(ext) {
    const base = (D.title || 'model').replace(/\.onnx$/i, '').replace(/[^A-Za-z0-9._-]+/g, '_');
    const g = curGraph(), gr = D.graphs[g];
    return base + (g ? '_' + gr.path.replace(/[^A-Za-z0-9._-]+/g, '_') : '') +
      (gr.regions.length > 1 ? '_region' + (state.region + 1) : '') + '.' + ext;
  }
  function download(name, blob) {
    const a = el('a', { download: name, href: URL.createObjectURL(blob) });
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 10000);
  }
  function exportView(kind) {
    const text = viewSvgText();
    if (kind === 'svg') { download(exportName('svg'), new Blob([text], { type: 'image/svg+xml' })); return; }
    // PNG: the same SVG drawn on a canvas at twice the screen's scale (img-src allows data: only).
    const img = new Image();
    img.onload = () => {
      const c = document.createElement('canvas'), scale = 2;
      c.width = img.width * scale;
      c.height = img.height * scale;
      const x = c.getContext('2d');
      x.scale(scale, scale);
      x.drawImage(img, 0, 0);
      c.toBlob((b) => download(exportName('png'), b), 'image/png');
    };
    img.src = 'data:image/svg+xml;charset=utf-8,' + encodeURIComponent(text);
  }
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
      if (node.hasAttribute('data-rollup')) text += '\nInside its bodies: ' + countsText(bodyCounts(n));
      const g = +node.dataset.g;
      if (folding(g)) foldedInto(g, +node.dataset.i).slice(0, 6).forEach((j) => {
        const f = D.graphs[g].nodes[j], out = f.o[0] >= 0 ? D.graphs[g].tensors[f.o[0]] : null;
        text += '\n+ ' + f.op + ' ' + clipMid(f.n || '#' + f.ix, 40) + (out && out[4] ? ' = ' + out[4] : '');
      });
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
  // Shows node i of graph g (a folded node: the node it is folded into); with
  // andSelect, opens its drawer, on `tab` when given (problems open on Verdict).
  function reveal(g, i, andSelect, tab) {
    const chain = chainTo(g);
    const gr = D.graphs[g], r = gr.nodes[drawnAt(g, i)].r;
    const same = state.stack.length === chain.length && state.stack.every((x, j) => x === chain[j]);
    if (!same || state.region !== r) {
      state.stack = chain;
      state.region = r;
      regionMemo[g] = r;
      renderRegion();
    }
    if (andSelect) select(g, i, tab);
    const it = layoutOf(g, r).items[itemIndex(g, i)];
    if (it) centerOn(it[2], it[3]);
  }
  function select(g, i, tab) {
    state.selected = { g: g, i: i };
    if (tab) state.tab = tab;
    markSelected();
    renderDrawer();
    showProblemPos();
    writeAnchor();
  }
  function markSelected() {
    const s = state.selected;
    const at = s ? drawnAt(s.g, s.i) : -1;
    for (const r of rendered) r.el.classList.toggle('selected', !!s && s.g === r.g && at === r.i);
  }

  // ---- drawer ------------------------------------------------------------
  const drawer = $('drawer');
  $('drawer-close').addEventListener('click', () => { drawer.hidden = true; state.selected = null; markSelected(); showProblemPos(); writeAnchor(); });
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
    drawer.setAttribute('data-mode', 'node');
    document.querySelector('.tabs').hidden = false;
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
      // Values: the first elements of constants (the page carries no more).
      const HEAD = ['Name', 'Type', 'Shape', 'Origin', 'Value'];
      const ioRows = (list) => list.map((t, j) => {
        if (t < 0) return row(['(omitted)', '', '', '', '']);
        const x = gr.tensors[t];
        const tr = row([x[0], x[1], x[2], x[3], x[4] || '']);
        tr.children[4].className = 'value';
        return tr;
      });
      body.appendChild(el('h4', null, 'Inputs'));
      body.appendChild(table(HEAD, ioRows(n.i)));
      body.appendChild(el('h4', null, 'Outputs'));
      body.appendChild(table(HEAD, ioRows(n.o)));
      if (n.ii) {
        body.appendChild(el('h4', null, 'Read by its subgraphs'));
        body.appendChild(table(HEAD, ioRows(n.ii)));
      }
      const folded = foldedInto(s.g, s.i);
      if (folded.length) {
        body.appendChild(el('h4', null, 'Folded into this node'));
        const box = el('div', { class: 'neighbours' });
        folded.forEach((j) => {
          const f = gr.nodes[j];
          const b = el('button', { type: 'button', 'data-target': nodeId(s.g, j) }, f.op + ' ' + clipMid(f.n || '#' + f.ix, 40));
          b.addEventListener('click', () => select(s.g, j));
          box.appendChild(b);
        });
        body.appendChild(box);
      }
      if (n.fo !== undefined) {
        const r = gr.nodes[n.fo];
        const p = el('p', { class: 'empty' }, 'Drawn inside ' + r.op + ' ' + clipMid(r.n || '#' + r.ix, 50) +
          ' (tick Constants to draw it as a box).');
        body.appendChild(p);
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
        // On the target, the releases it runs show the verdict narrowed to it.
        const onTarget = TG && state.tgt === 1 && TG.runs[r];
        const det = detailOf(n, r, state.prec, onTarget ? 1 : 0);
        const cells = [D.releases[r].name, x ? x[0] : 'absent', x ? (x[1] || 'not stated') : '',
          chip(det ? D.verdicts[det[0]] : 'UNKNOWN'), whyText(x, det)];
        if (TG) {
          cells.splice(3, 0, TG.precisions[r] === null ? 'does not run'
            : !TG.runs[r] ? 'no DLA facts for this release'
            : (TG.precisions[r] || 'not stated') + (det && det[4] ? '; ' + DLA_LABEL[det[4][0]] : ''));
        }
        const tr = row(cells);
        tr.setAttribute('data-release', D.releases[r].name);
        if (r === state.rel) tr.className = 'current';
        const at = TG ? 1 : 0;
        tr.children[0].className = tr.children[1].className = tr.children[3 + at].className = 'nw';
        tr.children[2].className = 'types';
        if (TG) tr.children[3].className = 'types target-precisions';
        tr.children[4 + at].className = 'small';
        rows.push(tr);
      }
      const heads = ['Release', 'Status', 'Precisions', 'At ' + (PREC_LABEL[prec] || prec) + (TG && state.tgt === 1 ? ' on ' + TG.name : ''), 'Why: rules, notes and reasons'];
      if (TG) heads.splice(3, 0, 'On ' + TG.name);
      body.appendChild(table(heads, rows));
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
        (det[1] && det[1] !== '-' ? '; runs at ' + det[1] : '') + (TG && state.tgt === 1 ? '; on ' + TG.label : '')));
      body.appendChild(head);
      if (det[4]) {
        const p = el('p', { class: 'dla-line', 'data-dla': det[4][0] }, 'DLA core: ' + DLA_LABEL[det[4][0]] +
          (D.strings[det[4][1]] ? ' \u2014 ' + D.strings[det[4][1]] : ''));
        if (D.strings[det[4][2]]) p.title = D.strings[det[4][2]];
        body.appendChild(p);
      }
      if (bodiesOf(n).length) {
        const c = bodyCounts(n);
        const p = el('p', { class: 'rollup-line', 'data-rollup': BY_SEVERITY[worstOf(c)] }, 'Inside its bodies: ' + countsText(c) +
          (worstOf(c) > SEVERITY[v] ? ' \u2014 worse than the node itself; open a body to see which nodes.' : '.'));
        body.appendChild(p);
      }
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

  // A Supported Runtimes cell: the table's rules and notes, then why this node gets
  // its verdict there (the reasons, or that every fact holds), so no cell is empty.
  function whyText(entry, det) {
    const parts = entry ? [entry[2], entry[3], entry[4]].filter(Boolean) : [];
    if (det) {
      const v = D.verdicts[det[0]];
      const reasons = det[2].map((ri) => D.strings[D.reasons[ri][1]]).filter(Boolean);
      if (reasons.length) parts.push(reasons.join('; '));
      else if (v === 'SUPPORTED') parts.push('every rule holds' + (det[1] && det[1] !== '-' ? '; runs at ' + det[1] : ''));
      else parts.push(VERDICT_LABEL[v] + (det[1] && det[1] !== '-' ? '; runs at ' + det[1] : ''));
    }
    return parts.join(' \u2014 ') || 'not analysed';
  }

  // ---- model properties: producer, opsets, inputs, outputs, op types ---------------
  function showProperties() {
    state.selected = null;
    markSelected();
    showProblemPos();
    writeAnchor();
    drawer.hidden = false;
    drawer.setAttribute('data-mode', 'model');
    drawer.removeAttribute('data-selected');
    $('drawer-op').textContent = 'Model properties';
    $('drawer-name').textContent = D.title;
    $('drawer-id').textContent = D.model.path;
    clear($('drawer-subs'));
    document.querySelector('.tabs').hidden = true;
    const body = $('drawer-body');
    clear(body);
    body.setAttribute('data-tab', 'model');
    const M = D.model, main = D.graphs[0];
    const counts = {};
    D.graphs.forEach((gr) => gr.nodes.forEach((n) => { counts[n.op] = (counts[n.op] || 0) + 1; }));
    const props = table(['', ''], [
      row(['Producer', M.producer || 'not recorded']),
      row(['IR version', M.ir_version]),
      row(['Opsets', M.opsets.map((o) => (o[0] || 'ai.onnx') + ' ' + o[1]).join(', ')]),
      row(['Nodes', M.nodes + (D.graphs.length > 1 ? ' in ' + D.graphs.length + ' graphs (main: ' + main.nodes.length + ')' : '')]),
      row(['Op types', Object.keys(counts).length]),
    ]);
    props.setAttribute('data-props', 'model');
    body.appendChild(props);
    const ioTable = (ids, what) => {
      const t = table(['Name', 'Type', 'Shape'], ids.map((t) => main.tensors[t]).filter((x) => x[3] !== 'initializer')
        .map((x) => row([x[0], x[1], x[2]])));
      t.setAttribute('data-props', what);
      return t;
    };
    body.appendChild(el('h4', null, 'Inputs'));
    body.appendChild(ioTable(main.inputs, 'inputs'));
    body.appendChild(el('h4', null, 'Outputs'));
    body.appendChild(ioTable(main.outputs, 'outputs'));
    body.appendChild(el('h4', null, 'Op types'));
    body.appendChild(table(['op_type', 'Nodes'], Object.keys(counts).sort((a, b) => counts[b] - counts[a] || (a < b ? -1 : 1))
      .map((op) => row([op, counts[op]]))));
  }
  $('props-button').addEventListener('click', showProperties);

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
  // The results panel lies over the drawer; filters by verdict (at the selected
  // runtime) and op_type work with or without a query ("every FALLBACK Resize").
  const search = $('search'), results = $('search-results'), panel = $('search-panel');
  const fVerdict = document.querySelector('select[name="filter-verdict"]');
  const fOp = document.querySelector('select[name="filter-op"]');
  D.verdicts.forEach((v) => fVerdict.appendChild(el('option', { value: v }, VERDICT_LABEL[v])));
  // On a DLA target: where the node runs ("place:DLA", "place:GPU_FALLBACK"), offered while the target is selected.
  if (DLA) {
    const group = el('optgroup', { label: 'On ' + TG.name });
    group.appendChild(el('option', { value: 'place:DLA' }, 'runs on the DLA'));
    group.appendChild(el('option', { value: 'place:GPU_FALLBACK' }, 'GPU fallback (DLA)'));
    fVerdict.appendChild(group);
  }
  function syncDlaControls() {
    if (!DLA) return;
    const on = onDla();
    fVerdict.querySelectorAll('option[value^="place:"]').forEach((o) => { o.disabled = !on; });
    if (!on && fVerdict.value.startsWith('place:')) fVerdict.value = '';
    $('minimap-head').hidden = !on;
    $('minimap').setAttribute('data-color', miniMode());
    $('minimap-legend').hidden = miniMode() !== 'placement';
  }
  (() => {
    const ops = {};
    D.graphs.forEach((gr) => gr.nodes.forEach((n) => { ops[n.op] = (ops[n.op] || 0) + 1; }));
    Object.keys(ops).sort().forEach((op) => fOp.appendChild(el('option', { value: op }, op + ' (' + ops[op] + ')')));
  })();
  let searchTimer = 0;
  function runSearch() {
    const q = search.value.trim().toLowerCase(), fv = fVerdict.value, fo = fOp.value;
    clear(results);
    results._hits = [];
    if (!q && !fv && !fo) { $('search-count').textContent = ''; return; }
    panel.hidden = false;
    const hits = [];
    const MAX = 200;
    let total = 0;
    for (let g = 0; g < D.graphs.length; g++) {
      const gr = D.graphs[g];
      const tensorHit = q ? gr.tensors.map((t) => t[0].toLowerCase().indexOf(q) >= 0) : null;
      for (let i = 0; i < gr.nodes.length; i++) {
        const n = gr.nodes[i];
        if (fo && n.op !== fo) continue;
        if (fv && (fv.startsWith('place:') ? placeOf(n) !== fv.slice(6) : verdictOf(n) !== fv)) continue;
        let why = '';
        if (q && !(n.n.toLowerCase().indexOf(q) >= 0 || n.op.toLowerCase() === q)) {
          const t = n.o.find((x) => x >= 0 && tensorHit[x]) ?? n.i.find((x) => x >= 0 && tensorHit[x]);
          if (t === undefined) continue;
          why = 'tensor ' + clipMid(gr.tensors[t][0], 30);
        }
        total++;
        if (hits.length < MAX) hits.push([g, i, why]);
      }
    }
    $('search-count').textContent = total > hits.length ? 'first ' + hits.length + ' of ' + total : total + ' node' + (total === 1 ? '' : 's');
    if (!hits.length) results.appendChild(el('li', { class: 'none' }, 'No node or tensor matches.'));
    hits.forEach(([g, i, why], j) => {
      const n = D.graphs[g].nodes[i], v = verdictOf(n), place = placeOf(n);
      const li = el('li', { 'data-target': nodeId(g, i), 'data-verdict': v, class: 'v-' + v, title: n.op + ' ' + n.n + ' \u00b7 ' + VERDICT_LABEL[v] +
        (place ? ' \u00b7 ' + DLA_LABEL[place] : '') });
      if (place) li.setAttribute('data-dla', place);
      li.appendChild(el('span', { class: 'dot' }));
      li.appendChild(el('b', null, n.op));
      li.appendChild(document.createTextNode(' ' + clipMid(n.n || '#' + n.ix, 44)));
      if (j === 0) li.classList.add('active');
      li.appendChild(el('span', { class: 'where' }, [why, place === 'GPU_FALLBACK' ? 'GPU fallback' : '', g ? graphLabel(g) : '']
        .filter(Boolean).join(' \u00b7 ')));
      li.addEventListener('mousedown', (ev) => {
        // Out of the drawer's way once a node is picked; focusing the box brings the list back.
        ev.preventDefault();
        closeSearch();
        reveal(g, i, true, v === 'SUPPORTED' && place !== 'GPU_FALLBACK' ? undefined : 'verdict');
      });
      results.appendChild(li);
    });
    results._hits = hits;
  }
  function closeSearch() { panel.hidden = true; }
  search.addEventListener('input', () => { clearTimeout(searchTimer); searchTimer = setTimeout(runSearch, 120); });
  const reopen = () => { if (results.childNodes.length) panel.hidden = false; };
  search.addEventListener('focus', reopen);
  search.addEventListener('click', reopen);  // it may still have the focus
  [fVerdict, fOp].forEach((f) => f.addEventListener('change', runSearch));
  search.addEventListener('keydown', (ev) => {
    if (ev.key === 'Enter') {
      clearTimeout(searchTimer);
      runSearch();
      const hits = results._hits || [];
      if (hits.length) { closeSearch(); reveal(hits[0][0], hits[0][1], true); }
    } else if (ev.key === 'Escape') { closeSearch(); }
  });
  // The panel stays open while its filters are used; a click elsewhere closes it.
  document.addEventListener('mousedown', (ev) => { if (!ev.target.closest('.search')) closeSearch(); });

  // The drawer opens under the header, so the runtime selector stays usable.
  function placeDrawer() { drawer.style.top = $('top').offsetHeight + 'px'; }
  window.addEventListener('resize', () => { placeDrawer(); applyView(); });
  placeDrawer();
  document.addEventListener('keydown', (ev) => {
    if (ev.target === search || ev.target.closest('select, input') || ev.ctrlKey || ev.metaKey || ev.altKey) return;
    if (ev.key === 'Escape' && !drawer.hidden) $('drawer-close').click();
    else if (ev.key === 'f') fit();
    else if (ev.key === 'n' || ev.key === ']') gotoProblem(1);
    else if (ev.key === 'p' || ev.key === '[') gotoProblem(-1);
  });

  // ---- the node anchor: #node=NAME[&graph=PATH][&trt=R&precision=P[&target=T]] ----
  // Links (the dashboard's failing nodes and diff graph, a copied URL) land on a node: the
  // runtime first, when this page has it, then the node opened as the unsupported list opens
  // one (reveal, drawer on Verdict). Selecting a node writes the anchor back (replaceState:
  // Back is not flooded). Names and values reach the page as text only.
  const note = $('note');
  $('note-close').addEventListener('click', () => { note.hidden = true; });
  function showNote(text) { $('note-text').textContent = text; note.title = text; note.hidden = false; }
  // The fields of an anchor, percent-decoded ('+' stays '+'); the first of each name counts.
  function anchorFields(hash) {
    const out = new Map();
    hash.replace(/^#/, '').split('&').forEach((kv) => {
      if (!kv) return;
      const at = kv.indexOf('=');
      let k = at < 0 ? kv : kv.slice(0, at), v = at < 0 ? '' : kv.slice(at + 1);
      try { k = decodeURIComponent(k); v = decodeURIComponent(v); } catch (e) { /* a stray '%': kept as written */ }
      if (!out.has(k)) out.set(k, v);
    });
    return out;
  }
  let byName = null;  // node name -> [[g, i], ...] in graph order (main first)
  function named(name) {
    if (!byName) {
      byName = new Map();
      D.graphs.forEach((gr, g) => gr.nodes.forEach((n, i) => {
        if (!n.n) return;
        const l = byName.get(n.n);
        if (l) l.push([g, i]); else byName.set(n.n, [[g, i]]);
      }));
    }
    return byName.get(name) || [];
  }
  // A page id "<graph path>/<index>" (data-node; check --format json's graph and index) -> [g, i].
  function nodeById(id) {
    const cut = id.lastIndexOf('/');
    if (cut < 0 || !/^\d+$/.test(id.slice(cut + 1))) return null;
    const g = D.graphs.findIndex((x) => x.path === id.slice(0, cut)), ix = +id.slice(cut + 1);
    const i = g < 0 ? -1 : D.graphs[g].nodes.findIndex((n) => n.ix === ix);
    return i < 0 ? null : [g, i];
  }
  // `key`: a node name (the first in graph order; in graph `path` when given), else a page id,
  // else an unnamed node as the version diff keys it, "<op_type> -> <first output>".
  function findNode(key, path) {
    const inPath = ([g]) => path === undefined || D.graphs[g].path === path;
    const hit = named(key).find(inPath) || nodeById(key);
    if (hit) return hit;
    const arrow = key.indexOf(' -> ');
    if (arrow < 0) return null;
    const op = key.slice(0, arrow), out = key.slice(arrow + 4);
    for (let g = 0; g < D.graphs.length; g++) {
      if (!inPath([g])) continue;
      const gr = D.graphs[g];
      const i = gr.nodes.findIndex((n) => !n.n && n.op === op && (n.o[0] >= 0 ? gr.tensors[n.o[0]][0] : '?') === out);
      if (i >= 0) return [g, i];
    }
    return null;
  }
  function applyAnchor(hash) {
    const f = anchorFields(hash), missing = [];
    if (f.has('trt') || f.has('precision') || f.has('target')) {
      const before = [state.rel, state.prec, state.tgt];
      const t = f.get('target');
      if (t) {
        if (TG && t === TG.name) state.tgt = 1; else missing.push('no target ' + t);
      } else if (f.has('trt')) state.tgt = 0;  // a release without a target: the plain runtime
      if (f.has('trt')) {
        const r = D.releases.findIndex((x) => x.name === f.get('trt'));
        if (r >= 0) state.rel = r; else missing.push('no TensorRT ' + f.get('trt'));
      }
      if (f.has('precision')) {
        const p = D.precisions.indexOf(f.get('precision').toLowerCase());
        if (p >= 0) state.prec = p; else missing.push('no precision ' + f.get('precision'));
      }
      if ([state.rel, state.prec, state.tgt].some((x, j) => x !== before[j])) {
        syncTarget();
        AXES.forEach((a) => { a.sel.selectedIndex = state[a.key]; });
        applyRuntime();
      }
    }
    if (f.get('node')) {
      const key = f.get('node'), at = findNode(key, f.has('graph') ? f.get('graph') : undefined);
      if (at) reveal(at[0], at[1], true, 'verdict');
      else missing.unshift('no node named ' + key + (f.has('graph') ? ' in ' + (f.get('graph') || 'main') : ''));
    }
    if (missing.length) showNote(missing.join('; '));
    else note.hidden = true;
  }
  // The shortest key that finds the node again: its name when no other node before it has
  // that name (in its graph, with graph=), else its page id.
  const enc = (s) => encodeURIComponent(s).replace(/%2F/g, '/').replace(/%3A/g, ':');
  function anchorOf(g, i) {
    const n = D.graphs[g].nodes[i], same = n.n ? named(n.n) : [];
    if (same.length && same[0][0] === g && same[0][1] === i) return 'node=' + enc(n.n);
    const inGraph = same.filter(([h]) => h === g);
    if (inGraph.length && inGraph[0][1] === i) return 'node=' + enc(n.n) + '&graph=' + enc(D.graphs[g].path);
    return 'node=' + enc(nodeId(g, i));
  }
  let anchorLive = false;  // false while the page starts: its own anchor is applied, not overwritten
  function writeAnchor() {
    if (!anchorLive) return;
    const s = state.selected;
    const h = s ? '#' + anchorOf(s.g, s.i) + '&trt=' + enc(D.releases[state.rel].name) + '&precision=' +
      D.precisions[state.prec] + (TG && state.tgt === 1 ? '&target=' + enc(TG.name) : '') : '';
    if (h === location.hash) return;
    try {
      history.replaceState(history.state, '', h || location.pathname + location.search);
    } catch (e) { /* an opaque origin may refuse it: the page works without */ }
  }
  window.addEventListener('hashchange', () => applyAnchor(location.hash));

  // ---- start -------------------------------------------------------------
  curDetail = detailsFor(runtimeIndex(state.rel, state.prec));
  computeRollup();
  syncDlaControls();
  $('fold-toggle').hidden = !D.graphs.some((gr) => gr.regions_folded);
  renderSummary();
  renderPartition();
  renderEngine();
  enterGraph(0);
  applyAnchor(location.hash);
  anchorLive = true;
  // A scripting hook: reveal('<graph>/<index>') opens the node's graph and
  // region, centres it and opens its drawer.
  window.trtlens = {
    data: D,
    reveal: function (id) {
      const at = nodeById(id);
      if (!at) return false;
      reveal(at[0], at[1], true);
      return true;
    },
    nextProblem: () => gotoProblem(1),
  };
  document.body.setAttribute('data-ready', 'true');
  performance.mark('trtlens-ready');  // time-to-interactive, read by bench/report
})();
