// Draws the engine report card from the JSON in #engine-data. No network, no libraries.
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("engine-data").textContent);
  var root = document.getElementById("report");
  root.textContent = "";
  var TYPE_COLORS = {
    Convolution: "#4682B4", Deconvolution: "#7B68EE", ConvActPool: "#6495ED", MatrixMultiply: "#1E90FF",
    gemm: "#1E90FF", Reformat: "#00FFFF", Shuffle: "#BC8F8F", Slice: "#FFA500", Scale: "#8FBC8B",
    Quantize: "#6B8E23", Pooling: "#3CB371", PluginV2: "#C71585", PointWise: "#9ACD32", ElementWise: "#9ACD32",
    Reduce: "#90EE90", SoftMax: "#DA70D6", Myelin: "#B39C4D", kgen: "#B39C4D", NonZero: "#98FB98",
    TrainStation: "#FFA07A"
  };
  var PREC_COLORS = { INT8: "#76B900", FP32: "#FF0000", FP16: "#FFA500", BF16: "#D2691E", INT32: "#D3D3D3", FP8: "#00BFFF" };
  function typeColor(t) { return TYPE_COLORS[t] || "#BEBEBE"; }
  function precColor(p) { return PREC_COLORS[p] || "#808080"; }
  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    if (attrs) for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function ms(v) { return v === 0 ? "0" : (v < 0.01 ? v.toFixed(5) : v.toFixed(4)); }
  function pct(v) { return v.toFixed(1) + "%"; }
  function table(head, rows, numeric) {
    var t = el("table"), tr = el("tr");
    head.forEach(function (h) { tr.appendChild(el("th", null, h)); });
    t.appendChild(tr);
    rows.forEach(function (r) {
      var row = el("tr");
      r.forEach(function (c, i) {
        var td = el("td", numeric && numeric[i] ? { "class": "num" } : null);
        if (c instanceof Node) td.appendChild(c); else td.textContent = c;
        row.appendChild(td);
      });
      t.appendChild(row);
    });
    return t;
  }
  var SVGNS = "http://www.w3.org/2000/svg";
  function svg(tag, attrs, text) {
    var e = document.createElementNS(SVGNS, tag);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  }
  // Horizontal bars: items [{label, value, color, title}]
  function hbars(items, unit) {
    var w = 760, left = 170, bh = 18, gap = 4, h = items.length * (bh + gap) + 10;
    var max = Math.max.apply(null, items.map(function (i) { return i.value; }).concat([1e-12]));
    var s = svg("svg", { width: w, height: h, viewBox: "0 0 " + w + " " + h, role: "img" });
    items.forEach(function (it, k) {
      var y = 5 + k * (bh + gap), bw = (w - left - 260) * it.value / max;
      s.appendChild(svg("text", { x: left - 6, y: y + 13, "text-anchor": "end" }, it.label));
      var r = svg("rect", { x: left, y: y, width: Math.max(bw, 0.5), height: bh, fill: it.color });
      r.appendChild(svg("title", {}, it.title || (it.label + ": " + it.value)));
      s.appendChild(r);
      s.appendChild(svg("text", { x: left + bw + 5, y: y + 13 }, it.text || (it.value + unit)));
    });
    var d = el("div", { "class": "chart" });
    d.appendChild(s);
    return d;
  }
  function legend(map, keys) {
    var d = el("div", { "class": "legend" });
    keys.forEach(function (k) {
      var s = el("span"), i = el("i");
      i.style.background = map(k);
      s.appendChild(i);
      s.appendChild(document.createTextNode(k));
      d.appendChild(s);
    });
    return d;
  }
  // Per-layer latency bars coloured by precision; canvas scales to thousands of layers.
  function layerChart(plan, colorOf, keyIndex) {
    var layers = plan.layers, w = 1000, h = 220;
    var c = el("canvas", { width: w, height: h });
    var ctx = c.getContext && c.getContext("2d");
    var d = el("div", { "class": "chart" });
    var keys = {};
    layers.forEach(function (l) { keys[l[keyIndex] || "none"] = 1; });
    d.appendChild(legend(colorOf, Object.keys(keys)));
    d.appendChild(c);
    if (!ctx || !layers.length) return d;
    var max = 0;
    layers.forEach(function (l) { if (l[3] > max) max = l[3]; });
    if (max <= 0) max = 1;
    var bw = w / layers.length;
    layers.forEach(function (l, i) {
      var bh = (h - 4) * l[3] / max;
      ctx.fillStyle = colorOf(l[keyIndex] || "none");
      ctx.fillRect(i * bw, h - bh, Math.max(bw - (bw > 3 ? 1 : 0), 0.5), Math.max(bh, 1));
    });
    c.title = "layers in execution order; bar height = average latency";
    return d;
  }
  function kvTable(kv) { return table(["setting", "value"], kv.map(function (p) { return [p[0], p[1]]; })); }

  function renderPlan(plan, idx) {
    var sec = el("section", { "class": "plan", id: "plan-" + idx });
    sec.appendChild(el("h2", null, plan.name));
    var cards = el("div", { "class": "cards" });
    function card(v, label) { var c = el("div", { "class": "card" }); c.appendChild(el("b", null, v)); c.appendChild(el("span", null, label)); cards.appendChild(c); }
    card(ms(plan.total_ms) + " ms", "total latency (sum of layer averages)");
    card(String(plan.layers_count), "layers (" + plan.noops_folded + " NoOps folded)");
    card(String(plan.reformat[0]) + " / " + pct(plan.reformat[2]), "reformat layers / share of time");
    card(String(plan.fused), "fused layers");
    var warn = plan.findings.filter(function (f) { return f[0] !== "info"; }).length;
    card(plan.findings.length + " (" + warn + " warnings)", "lint findings");
    card(plan.layout, "graph.json layout");
    sec.appendChild(cards);
    if (plan.partial) {
      var n = el("div", { "class": "notes" });
      n.appendChild(el("b", null, "Partial results"));
      var ul = el("ul");
      plan.notes.forEach(function (t) { ul.appendChild(el("li", null, t)); });
      n.appendChild(ul);
      sec.appendChild(n);
    }
    sec.appendChild(el("h3", null, "Latency per layer type (ms)"));
    sec.appendChild(hbars(plan.by_type.map(function (g) {
      return { label: g[0], value: g[2], color: typeColor(g[0]), text: ms(g[2]) + " ms, " + pct(g[3]) + " (" + g[1] + " layers)" };
    }), " ms"));
    sec.appendChild(el("h3", null, "Layers by precision"));
    sec.appendChild(hbars(plan.by_precision.map(function (g) {
      return { label: g[0], value: g[1], color: precColor(g[0]), text: g[1] + " layers, " + ms(g[2]) + " ms, " + pct(g[3]) };
    }), ""));
    sec.appendChild(el("h3", null, "Precision per layer (bar height: latency)"));
    sec.appendChild(layerChart(plan, precColor, 2));
    sec.appendChild(el("h3", null, "Latency per layer, coloured by type"));
    sec.appendChild(layerChart(plan, typeColor, 1));
    sec.appendChild(el("h3", null, "Slowest layers"));
    sec.appendChild(table(["layer", "type", "precision", "ms", "% time"],
      plan.slowest.map(function (l) { return [l[0], l[1], l[2], ms(l[3]), pct(l[4])]; }), [0, 0, 0, 1, 1]));
    sec.appendChild(el("h3", null, "Reformat layers: " + plan.reformat[0] + ", " + ms(plan.reformat[1]) + " ms, " + pct(plan.reformat[2]) + " of time"));
    if (plan.reformats.length) {
      var rs = el("div", { "class": "scroll" });
      rs.appendChild(table(["layer", "origin", "conversion", "ms", "why"],
        plan.reformats.map(function (r) { return [r[0], r[1], r[2] + " \u2192 " + r[3], ms(r[4]), r[5]]; }), [0, 0, 0, 1, 0]));
      sec.appendChild(rs);
    }
    sec.appendChild(el("h3", null, "Lint findings"));
    if (plan.findings.length) {
      var fs = el("div", { "class": "scroll" });
      fs.appendChild(table(["severity", "linter", "layer", "message", "suggestion"], plan.findings.map(function (f) {
        return [el("span", { "class": "sev-" + f[0] }, f[0]), f[1], f[2], f[3], f[4]];
      })));
      sec.appendChild(fs);
    } else {
      sec.appendChild(el("p", null, "No findings."));
    }
    sec.appendChild(el("h3", null, "Layers"));
    var filter = el("input", { "class": "filter", placeholder: "filter by name, type or precision" });
    sec.appendChild(filter);
    var holder = el("div", { "class": "scroll" });
    sec.appendChild(holder);
    function drawLayers() {
      var q = filter.value.toLowerCase(), rows = [];
      for (var i = 0; i < plan.layers.length && rows.length < 500; i++) {
        var l = plan.layers[i];
        if (q && (l[0] + " " + l[1] + " " + l[2]).toLowerCase().indexOf(q) < 0) continue;
        rows.push([String(i), l[0], l[1], l[2], l[5], l[6], ms(l[3]), pct(l[4])]);
      }
      holder.textContent = "";
      holder.appendChild(table(["#", "layer", "type", "precision", "output precision", "tactic", "ms", "% time"], rows, [1, 0, 0, 0, 0, 0, 1, 1]));
      if (rows.length === 500) holder.appendChild(el("p", null, "first 500 matching layers shown; filter to narrow"));
    }
    filter.addEventListener("input", drawLayers);
    drawLayers();
    if (plan.device.length || plan.builder.length) {
      sec.appendChild(el("h3", null, "Device"));
      sec.appendChild(plan.device.length ? kvTable(plan.device) : el("p", null, "no profile.metadata.json"));
      sec.appendChild(el("h3", null, "Builder"));
      sec.appendChild(plan.builder.length ? kvTable(plan.builder) : el("p", null, "no build.metadata.json"));
    }
    if (plan.performance.length) {
      sec.appendChild(el("h3", null, "Performance summary (trtexec)"));
      sec.appendChild(kvTable(plan.performance));
    }
    if (plan.overlay) sec.appendChild(renderOverlay(plan.overlay));
    sec.appendChild(el("h3", null, "Graph"));
    var tpl = document.getElementById("graph-" + idx);
    if (tpl) {
      var g = el("div", { "class": "graph" });
      g.appendChild(document.importNode(tpl.content, true));
      sec.appendChild(legend(precColor, ["FP32", "FP16", "INT8", "BF16", "FP8", "INT32"]));
      sec.appendChild(g);
    } else {
      sec.appendChild(el("p", null, plan.graph || "no graph"));
    }
    return sec;
  }

  // The ONNX model on this plan (engine report --model): the overlay JSON document.
  function renderOverlay(o) {
    var box = el("div", { "class": "overlay" });
    var S = o.summary;
    box.appendChild(el("h3", null, "ONNX model " + o.model + ": " + S.in_layers + " of " + S.nodes + " nodes in " +
      S.layers_with_nodes + " of " + S.layers + " layers"));
    box.appendChild(el("p", null, S.foreign_node + " inside Myelin ForeignNode regions, " + S.constant_folded +
      " constant-folded, " + S.not_found + " not found. Compared with check for TensorRT " + o.runtime.release + " " +
      o.runtime.precision + " (release: " + o.runtime.release_source + "; precision: " + o.runtime.precision_source + ")."));
    box.appendChild(el("h3", null, "Where check's prediction disagrees: " + o.disagreements.length + " of " + S.compared + " nodes"));
    if (o.disagreements.length) {
      var ds = el("div", { "class": "scroll" });
      ds.appendChild(table(["node", "kind", "predicted", "ran at", "why"], o.disagreements.map(function (d) {
        return [d.name || d.node, d.kind, d.predicted_verdict + " " + d.predicted_precision, d.measured_precision, d.message];
      })));
      box.appendChild(ds);
    }
    box.appendChild(el("h3", null, "Nodes and the layers they became"));
    var filter = el("input", { "class": "filter", placeholder: "filter by node, op_type or layer" });
    box.appendChild(filter);
    var holder = el("div", { "class": "scroll" });
    box.appendChild(holder);
    function draw() {
      var q = filter.value.toLowerCase(), rows = [];
      for (var i = 0; i < o.nodes.length && rows.length < 500; i++) {
        var n = o.nodes[i];
        if (q && (n.name + " " + n.op_type + " " + (n.layer || "")).toLowerCase().indexOf(q) < 0) continue;
        rows.push([n.id, n.name, n.op_type, n.layer || "-", n.precision || "-",
          n.latency_ms === null ? "-" : ms(n.latency_ms), n.percent === null ? "-" : pct(n.percent),
          n.vanished || (n.match || ""), n.predicted ? n.predicted.verdict + " " + n.predicted.precision : ""]);
      }
      holder.textContent = "";
      holder.appendChild(table(["node", "name", "op_type", "layer", "precision", "ms", "% time", "how", "predicted"], rows,
        [0, 0, 0, 0, 0, 1, 1, 0, 0]));
      if (rows.length === 500) holder.appendChild(el("p", null, "first 500 matching nodes shown; filter to narrow"));
    }
    filter.addEventListener("input", draw);
    draw();
    return box;
  }

  // Several plans: a stacked bar per plan of latency by layer type.
  if (data.plans.length > 1) {
    var cmp = el("section", { "class": "plan", id: "comparison" });
    cmp.appendChild(el("h2", null, "Comparison"));
    cmp.appendChild(table(["plan", "layers", "total ms", "vs first"], data.plans.map(function (p) {
      return [p.name, String(p.layers_count), ms(p.total_ms), data.plans[0].total_ms > 0 ? (p.total_ms / data.plans[0].total_ms).toFixed(2) + "x" : "-"];
    }), [0, 1, 1, 1]));
    var types = {};
    data.plans.forEach(function (p) { p.by_type.forEach(function (g) { types[g[0]] = (types[g[0]] || 0) + g[2]; }); });
    var order = Object.keys(types).sort(function (a, b) { return types[b] - types[a]; });
    var maxTotal = Math.max.apply(null, data.plans.map(function (p) { return p.total_ms; }).concat([1e-12]));
    var w = 960, left = 300, bh = 24, h = data.plans.length * (bh + 8) + 10;
    var s = svg("svg", { width: w, height: h, role: "img" });
    data.plans.forEach(function (p, k) {
      var y = 5 + k * (bh + 8), x = left;
      var label = p.name.length > 40 ? p.name.slice(0, 37) + "..." : p.name;
      s.appendChild(svg("text", { x: left - 6, y: y + 16, "text-anchor": "end" }, label + " (" + (k + 1) + ")"));
      order.forEach(function (t) {
        var g = p.by_type.filter(function (x) { return x[0] === t; })[0];
        if (!g) return;
        var bw = (w - left - 80) * g[2] / maxTotal;
        var r = svg("rect", { x: x, y: y, width: Math.max(bw, 0), height: bh, fill: typeColor(t), stroke: "#fff" });
        r.appendChild(svg("title", {}, t + ": " + ms(g[2]) + " ms (" + g[1] + " layers)"));
        s.appendChild(r);
        x += bw;
      });
      s.appendChild(svg("text", { x: x + 5, y: y + 16 }, ms(p.total_ms) + " ms"));
    });
    cmp.appendChild(el("h3", null, "Latency by layer type, stacked"));
    cmp.appendChild(legend(typeColor, order));
    var d = el("div", { "class": "chart" });
    d.appendChild(s);
    cmp.appendChild(d);
    root.appendChild(cmp);
  }
  data.plans.forEach(function (p, i) { root.appendChild(renderPlan(p, i)); });
})();
