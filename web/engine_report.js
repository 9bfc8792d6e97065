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
  // Shares of a big plan's layers are small: two significant digits below 1% (0.017%), not 0.0%.
  function pct(v) { return (v > 0 && v < 1 ? +v.toPrecision(2) : v.toFixed(1)) + "%"; }
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
  function kvTable(kv) { return table(["setting", "value"], kv.map(function (p) { return [p[0], p[1]]; })); }
  function num(v, digits) { return v === null || v === undefined ? "-" : v.toFixed(digits === undefined ? 0 : digits); }
  function si(v) {
    var u = ["", " k", " M", " G", " T", " P", " E"], i = 0;
    while (Math.abs(v) >= 1000 && i < 6) { v /= 1000; i++; }
    return i ? v.toPrecision(3) + u[i] : String(Math.round(v));
  }
  function mib(b) { return b >= 1048576 ? (b / 1048576).toFixed(1) + " MiB" : b >= 1024 ? (b / 1024).toFixed(1) + " KiB" : b + " B"; }
  // The graph, laid out by trtlens (regions of consecutive layers for big
  // plans, shown one at a time as the ONNX report does) and drawn here.
  var ITEM_LAYER = 0, ITEM_INPUT = 1, ITEM_OUTPUT = 2, ITEM_FROM = 3, ITEM_TO = 4;
  function fit(text, width) {
    var n = Math.max(Math.floor((width - 10) / 6.2), 4);
    return text.length > n ? text.slice(0, n - 1) + "\u2026" : text;
  }
  var arrows = 0;  // one arrowhead marker per drawing: ids must stay unique in the page
  function drawRegion(plan, region, onRegion, highlight) {
    var gr = plan.graph, pad = 8, tensors = gr.tensors, arrow = "arrow-" + (arrows++);
    var s = svg("svg", { width: region.w + 2 * pad, height: region.h + 2 * pad, role: "img" });
    var root = svg("g", { transform: "translate(" + pad + "," + pad + ")" });
    s.appendChild(root);
    region.edges.forEach(function (e) {
      var p = e[3], t = tensors[e[2]];
      if (p.length < 4) return;
      // p: B-spline points (1 + 3k pairs), then the arrow tip.
      var n = (p.length - 2) / 2, d = "M" + p[0] + "," + p[1];
      for (var k = 1; k + 2 < n; k += 3) {
        var o = 2 * k;
        d += " C" + p[o] + "," + p[o + 1] + " " + p[o + 2] + "," + p[o + 3] + " " + p[o + 4] + "," + p[o + 5];
      }
      d += " L" + p[p.length - 2] + "," + p[p.length - 1];
      var path = svg("path", { d: d, fill: "none", stroke: precColor(t[3]), "stroke-width": 2, "marker-end": "url(#" + arrow + ")" });
      path.appendChild(svg("title", {}, t[0] + "\n" + t[1] + "  " + t[2]));
      root.appendChild(path);
    });
    region.items.forEach(function (it) {
      var x = it[2] - it[4] / 2, y = it[3] - it[5] / 2, g = svg("g", { "data-kind": it[0], "data-ref": it[1] }), tip, lines, fill, fg = "#000";
      if (it[0] === ITEM_LAYER) {
        var l = plan.layers[it[1]];
        fill = layerColor(l);
        if (l[1] === "Convolution" || l[1] === "Deconvolution" || l[1] === "PluginV2") fg = "#fff";
        lines = [fit(l[0], it[4]), fit(l[1] + (l[2] ? " \u00b7 " + l[2] : "") + (plan.has_profile ? " \u00b7 " + ms(l[3]) + " ms" : ""), it[4])];
        tip = "#" + it[1] + " " + l[0] + "\ntype: " + l[1] + "\nprecision: " + (l[2] || "-") + "\noutput precision: " + (l[5] || "-") +
          (l[6] ? "\ntactic: " + l[6] : "") + (plan.has_profile ? "\nlatency: " + ms(l[3]) + " ms (" + pct(l[4]) + ")" : "");
      } else if (it[0] === ITEM_INPUT || it[0] === ITEM_OUTPUT) {
        var t = tensors[it[1]];
        fill = "#F0F0F0";
        lines = [fit((it[0] === ITEM_INPUT ? "input: " : "output: ") + t[0], it[4])];
        tip = t[0] + "\n" + t[1] + "  " + t[2];
      } else {
        fill = "#E8E8F8";
        lines = [(it[0] === ITEM_FROM ? "from region " : "to region ") + (it[1] + 1)];
        tip = "layers " + it[1] * gr.region_layers + "\u2013" + (Math.min(plan.layers.length, (it[1] + 1) * gr.region_layers) - 1) +
          ": click to show that region";
        g.style.cursor = "pointer";
        g.addEventListener("click", function () { onRegion(it[1]); });
      }
      var box = svg("rect", { x: x, y: y, width: it[4], height: it[5], rx: it[0] === ITEM_LAYER ? 4 : 12, fill: fill, stroke: "#555" });
      if (highlight === it[1] && it[0] === ITEM_LAYER) {
        box.setAttribute("stroke", "#FF00FF");
        box.setAttribute("stroke-width", 5);
        g.setAttribute("data-highlight", "true");
      }
      g.appendChild(box);
      lines.forEach(function (txt, k) {
        g.appendChild(svg("text", { x: it[2], y: it[3] + (k - (lines.length - 1) / 2) * 13 + 4, "text-anchor": "middle",
          fill: fg, "font-size": 11 }, txt));
      });
      g.appendChild(svg("title", {}, tip));
      root.appendChild(g);
    });
    var defs = svg("defs", {}), marker = svg("marker", { id: arrow, viewBox: "0 0 10 10", refX: 9, refY: 5,
      markerWidth: 5, markerHeight: 5, orient: "auto-start-reverse" });
    marker.appendChild(svg("path", { d: "M0,0 L10,5 L0,10 z", fill: "#555" }));
    defs.appendChild(marker);
    s.insertBefore(defs, s.firstChild);
    return s;
  }
  function graphView(plan) {
    var box = el("div"), gr = plan.graph;
    if (!gr || gr.error || !gr.regions.length || !plan.layers.length) {
      box.appendChild(el("p", null, (gr && gr.error) || "no graph"));
      return box;
    }
    var regions = gr.regions.length, current = -1;
    var g = el("div", { "class": "graph" });
    var bar = el("div", { "class": "regions" });
    var sel = el("select", { name: "region" }), prev = el("button", { "data-act": "prev" }, "\u25c0 previous");
    var next = el("button", { "data-act": "next" }, "next \u25b6");
    var find = el("input", { "class": "filter", name: "find", placeholder: "find a layer by name" });
    var info = el("span", { "class": "find-result" });
    function show(r, highlight) {
      if (r < 0 || r >= regions || (r === current && highlight === undefined)) return;
      current = r;
      sel.value = String(r);
      g.textContent = "";
      g.appendChild(drawRegion(plan, gr.regions[r], show, highlight));
    }
    if (regions > 1) {
      for (var r = 0; r < regions; r++) {
        var first = r * gr.region_layers, last = Math.min(plan.layers.length, first + gr.region_layers) - 1;
        sel.appendChild(el("option", { value: String(r) }, "region " + (r + 1) + " of " + regions + ": layers " + first + "\u2013" + last));
      }
      sel.addEventListener("change", function () { show(+sel.value); });
      prev.addEventListener("click", function () { show(current - 1); });
      next.addEventListener("click", function () { show(current + 1); });
      find.addEventListener("change", function () {
        var q = find.value.toLowerCase();
        if (!q) return;
        for (var i = 0; i < plan.layers.length; i++)
          if (plan.layers[i][0].toLowerCase().indexOf(q) >= 0) {
            show(Math.floor(i / gr.region_layers), i);
            info.textContent = "layer " + i + ": " + plan.layers[i][0];
            return;
          }
        info.textContent = "no layer name contains \u201c" + find.value + "\u201d";
      });
      [prev, sel, next, find, info].forEach(function (x) { bar.appendChild(x); });
      box.appendChild(el("p", null, plan.layers.length + " layers, drawn in " + regions + " regions of " + gr.region_layers +
        " consecutive layers (execution order); \u201cfrom/to region\u201d boxes lead to the neighbouring regions."));
      box.appendChild(bar);
    }
    box.appendChild(legend(precColor, ["FP32", "FP16", "INT8", "BF16", "FP8", "INT32"]));
    box.appendChild(g);
    show(0);
    return box;
  }

  // TREx colours a reformat of Origin QDQ (an unfused Quantize/Dequantize) as
  // Quantize (trex/graphing.py layer_type_formatter); layer [9] says so.
  function layerColor(l) { return l[9] ? TYPE_COLORS.Quantize : typeColor(l[1]); }
  function cut(s, n) { return s.length > n ? s.slice(0, n - 1) + "\u2026" : s; }
  // Round tick values from 0 to max: about `count` of them.
  function ticks(max, count) {
    if (!(max > 0)) return [0];
    var raw = max / count, mag = Math.pow(10, Math.floor(Math.log10(raw))), step = mag;
    [1, 2, 2.5, 5, 10].some(function (m) { step = m * mag; return raw <= step; });
    var out = [];
    for (var v = 0; v <= max * 1.0001; v += step) out.push(+v.toPrecision(6));
    return out;
  }
  function tickText(v) { return v === 0 ? "0" : Math.abs(v) >= 100 ? v.toFixed(0) : +v.toPrecision(3) + ""; }
  // A vertical value axis at x, from y0 (value 0) up to y0 - h (value max), with a unit title.
  function yAxis(s, x, y0, h, max, unit) {
    var tk = ticks(max, 5), top = tk[tk.length - 1] || 1;
    s.appendChild(svg("line", { x1: x, y1: y0, x2: x, y2: y0 - h, stroke: "#999" }));
    tk.forEach(function (v) {
      var y = y0 - h * v / top;
      s.appendChild(svg("line", { x1: x - 4, y1: y, x2: x, y2: y, stroke: "#999" }));
      s.appendChild(svg("text", { x: x - 6, y: y + 4, "text-anchor": "end", "class": "tick" }, tickText(v)));
    });
    s.appendChild(svg("text", { x: x - 6, y: y0 - h - 8, "text-anchor": "end", "class": "axis-title" }, unit));
    return top;
  }
  function chartBox(s, cls) {
    var d = el("div", { "class": "chart" + (cls ? " " + cls : "") });
    d.appendChild(s);
    return d;
  }
  function layerTip(plan, i) {
    var l = plan.layers[i];
    return "#" + i + " " + l[0] + "\n" + l[1] + (l[9] ? " (unfused Q/DQ)" : "") + " \u00b7 " + (l[2] || "-") + " \u2192 " + (l[5] || "-") +
      (plan.has_profile ? "\n" + ms(l[3]) + " ms (" + pct(l[4]) + " of the layer sum)" : "") + (l[6] ? "\ntactic: " + l[6] : "");
  }

  // Per-layer latency in execution order, a window of layers at a time: a bar
  // per layer with its name under it, a ms axis, the layer on hover.
  function windowBars(plan, from, count, colorOf) {
    var L = plan.layers, to = Math.min(L.length, from + count), n = Math.max(to - from, 1);
    var left = 64, plotH = 200, labelH = 150, bw = Math.max(10, Math.min(28, Math.floor(1100 / n)));
    var w = left + n * bw + 30, h = 20 + plotH + labelH, y0 = 20 + plotH, max = 0;
    for (var i = from; i < to; i++) max = Math.max(max, L[i][3]);
    var s = svg("svg", { width: w, height: h, role: "img", "class": "layer-bars" });
    var top = yAxis(s, left, y0, plotH, max, "ms");
    for (i = from; i < to; i++) {
      var l = L[i], x = left + (i - from) * bw, bh = top > 0 ? plotH * l[3] / top : 0;
      var r = svg("rect", { x: x + 1, y: y0 - bh, width: bw - 2, height: Math.max(bh, 0.5), fill: colorOf(l), "data-layer": i });
      r.appendChild(svg("title", {}, layerTip(plan, i)));
      s.appendChild(r);
      var t = svg("text", { x: x + bw / 2 + 3, y: y0 + 8, "text-anchor": "end", "class": "layer-name",
        transform: "rotate(-60 " + (x + bw / 2 + 3) + " " + (y0 + 8) + ")" }, cut(l[0], 26));
      t.appendChild(svg("title", {}, layerTip(plan, i)));
      s.appendChild(t);
    }
    s.appendChild(svg("line", { x1: left, y1: y0, x2: left + n * bw, y2: y0, stroke: "#999" }));
    return s;
  }
  // Ranked horizontal bars with names and a value axis on top: items [{label, value, color, title, ref}].
  function rankBars(items, unit, valueText) {
    var left = 300, right = 170, bh = 16, gap = 3, w = 1100, plotW = w - left - right, top = 26;
    var h = top + items.length * (bh + gap) + 6, max = 0;
    items.forEach(function (it) { max = Math.max(max, it.value); });
    var s = svg("svg", { width: w, height: h, role: "img", "class": "rank-bars" });
    var tk = ticks(max, 6), tmax = tk[tk.length - 1] || 1;
    tk.forEach(function (v) {
      var x = left + plotW * v / tmax;
      s.appendChild(svg("line", { x1: x, y1: top - 4, x2: x, y2: h, stroke: "#eee" }));
      s.appendChild(svg("text", { x: x, y: top - 8, "text-anchor": "middle", "class": "tick" }, tickText(v)));
    });
    s.appendChild(svg("text", { x: left + plotW, y: 10, "text-anchor": "end", "class": "axis-title" }, unit));
    items.forEach(function (it, k) {
      var y = top + k * (bh + gap), bw = plotW * it.value / tmax;
      var name = svg("text", { x: left - 6, y: y + 12, "text-anchor": "end", "class": "layer-name" }, cut(it.label, 46));
      name.appendChild(svg("title", {}, it.title || it.label));
      s.appendChild(name);
      var attrs = { x: left, y: y, width: Math.max(bw, 0.5), height: bh, fill: it.color };
      if (it.ref !== undefined) attrs["data-layer"] = it.ref;
      var r = svg("rect", attrs);
      r.appendChild(svg("title", {}, it.title || it.label));
      s.appendChild(r);
      s.appendChild(svg("text", { x: left + bw + 5, y: y + 12 }, valueText(it)));
    });
    return s;
  }
  // Latency per type as one stacked bar per type: its slowest layers as
  // segments (hover names them), the rest as one grey segment.
  function typeStacks(plan) {
    var byType = {}, order = plan.by_type.map(function (g) { return g[0]; });
    plan.layers.forEach(function (l, i) { (byType[l[1]] = byType[l[1]] || []).push(i); });
    var left = 160, w = 1100, plotW = w - left - 200, bh = 18, gap = 4, top = 26, h = top + order.length * (bh + gap) + 6;
    var max = 0;
    plan.by_type.forEach(function (g) { max = Math.max(max, g[2]); });
    var s = svg("svg", { width: w, height: h, role: "img", "class": "type-stacks" });
    var tk = ticks(max, 6), tmax = tk[tk.length - 1] || 1;
    tk.forEach(function (v) {
      var x = left + plotW * v / tmax;
      s.appendChild(svg("line", { x1: x, y1: top - 4, x2: x, y2: h, stroke: "#eee" }));
      s.appendChild(svg("text", { x: x, y: top - 8, "text-anchor": "middle", "class": "tick" }, tickText(v)));
    });
    s.appendChild(svg("text", { x: left + plotW, y: 10, "text-anchor": "end", "class": "axis-title" }, "ms"));
    plan.by_type.forEach(function (g, k) {
      var y = top + k * (bh + gap), x = left, idx = (byType[g[0]] || []).slice();
      idx.sort(function (a, b) { return plan.layers[b][3] - plan.layers[a][3]; });
      s.appendChild(svg("text", { x: left - 6, y: y + 13, "text-anchor": "end" }, g[0]));
      var shown = idx.slice(0, 25), rest = 0;
      idx.slice(25).forEach(function (i) { rest += plan.layers[i][3]; });
      shown.forEach(function (i) {
        var bw = plotW * plan.layers[i][3] / tmax;
        var r = svg("rect", { x: x, y: y, width: Math.max(bw, 0), height: bh, fill: layerColor(plan.layers[i]), stroke: "#fff", "data-layer": i });
        r.appendChild(svg("title", {}, layerTip(plan, i)));
        s.appendChild(r);
        x += bw;
      });
      if (rest > 0) {
        var bw = plotW * rest / tmax, r = svg("rect", { x: x, y: y, width: bw, height: bh, fill: "#ccc" });
        r.appendChild(svg("title", {}, (idx.length - 25) + " more " + g[0] + " layers: " + ms(rest) + " ms"));
        s.appendChild(r);
        x += bw;
      }
      s.appendChild(svg("text", { x: x + 5, y: y + 13 }, ms(g[2]) + " ms, " + pct(g[3]) + ", " + g[1] + " layers"));
    });
    return s;
  }
  // The per-layer latency chart. Up to kFullChart layers: every layer in
  // execution order. Above: the slowest layers plus "other", per-type stacks,
  // or a window of execution order (zoomable, movable).
  var kFullChart = 300, kTop = 40;
  function layerChart(plan) {
    var box = el("div", { "class": "layer-chart" }), bar = el("div", { "class": "regions" }), holder = el("div");
    var L = plan.layers, big = L.length > kFullChart;
    var mode = el("select", { name: "chart-mode" }), win = { from: 0, count: big ? 150 : L.length };
    (big ? [["top", "slowest " + kTop + " layers + other"], ["types", "per type, stacked by layer"], ["order", "execution order (a window)"]]
      : [["order", "execution order"], ["top", "slowest " + kTop + " layers + other"], ["types", "per type, stacked by layer"]])
      .forEach(function (o) { mode.appendChild(el("option", { value: o[0] }, o[1])); });
    var from = el("input", { type: "number", name: "chart-from", min: 0, max: Math.max(L.length - 1, 0), value: 0, "class": "small" });
    var prev = el("button", { "data-act": "chart-prev" }, "\u25c0"), next = el("button", { "data-act": "chart-next" }, "\u25b6");
    var zin = el("button", { "data-act": "zoom-in" }, "zoom in"), zout = el("button", { "data-act": "zoom-out" }, "zoom out");
    var info = el("span", { "class": "sub" });
    var winCtl = [el("span", null, "first layer"), from, prev, next, zin, zout];
    function draw() {
      holder.textContent = "";
      var m = mode.value, isWin = m === "order";
      // Zoom is offered in execution order; moving only when a window is smaller than the plan.
      var windowed = win.count < L.length;
      winCtl.forEach(function (c) { c.style.display = isWin && (windowed || c === zin) ? "" : "none"; });
      if (!L.length) { holder.appendChild(el("p", null, "no layers")); return; }
      if (m === "order") {
        win.from = Math.max(0, Math.min(win.from, L.length - 1));
        from.value = String(win.from);
        holder.appendChild(chartBox(windowBars(plan, win.from, win.count, layerColor), "wide"));
        info.textContent = "layers " + win.from + "\u2013" + (Math.min(L.length, win.from + win.count) - 1) + " of " + L.length +
          " in execution order; bar height: average latency (profile.json); hover a bar for the layer";
      } else if (m === "top") {
        var idx = L.map(function (_, i) { return i; }).sort(function (a, b) { return L[b][3] - L[a][3]; });
        var items = idx.slice(0, kTop).map(function (i) {
          return { label: L[i][0], value: L[i][3], color: layerColor(L[i]), title: layerTip(plan, i), ref: i, pct: L[i][4] };
        });
        var rest = 0, restPct = 0;
        idx.slice(kTop).forEach(function (i) { rest += L[i][3]; restPct += L[i][4]; });
        if (idx.length > kTop) items.push({ label: "other (" + (idx.length - kTop) + " layers)", value: rest, color: "#ccc", pct: restPct,
          title: (idx.length - kTop) + " other layers together" });
        holder.appendChild(chartBox(rankBars(items, "ms", function (it) { return ms(it.value) + " ms, " + pct(it.pct); })));
        info.textContent = "the " + Math.min(kTop, L.length) + " slowest of " + L.length + " layers, then the rest as one bar";
      } else {
        holder.appendChild(chartBox(typeStacks(plan)));
        info.textContent = "each type's layers as segments, slowest first (25 per type; the rest grey); hover a segment for the layer";
      }
    }
    mode.addEventListener("change", draw);
    from.addEventListener("change", function () { win.from = +from.value || 0; draw(); });
    prev.addEventListener("click", function () { win.from -= win.count; draw(); });
    next.addEventListener("click", function () { if (win.from + win.count < L.length) win.from += win.count; draw(); });
    zin.addEventListener("click", function () { win.count = Math.max(10, Math.floor(win.count / 2)); draw(); });
    zout.addEventListener("click", function () { win.count = Math.min(Math.min(kFullChart, L.length), win.count * 2); draw(); });
    [mode].concat(winCtl).concat([info]).forEach(function (c) { bar.appendChild(c); });
    box.appendChild(bar);
    var keys = {}, qdq = false;
    L.forEach(function (l) { if (l[9]) qdq = true; else keys[l[1]] = 1; });
    var lg = legend(typeColor, Object.keys(keys));
    if (qdq) {
      var sp = el("span"), i = el("i");
      i.style.background = TYPE_COLORS.Quantize;
      sp.appendChild(i);
      sp.appendChild(document.createTextNode("unfused Q/DQ (reformat of origin QDQ)"));
      lg.appendChild(sp);
    }
    box.appendChild(lg);
    box.appendChild(holder);
    draw();
    return box;
  }
  // How many layers take how long: log-spaced latency bins (layers at 0 ms counted apart).
  function histogram(plan) {
    var vals = plan.layers.map(function (l) { return l[3]; }).filter(function (v) { return v > 0; });
    var zero = plan.layers.length - vals.length, box = el("div");
    if (!vals.length) { box.appendChild(el("p", null, "no layer has a latency (no profile.json)")); return box; }
    var lo = Math.log10(Math.min.apply(null, vals)), hi = Math.log10(Math.max.apply(null, vals));
    lo = Math.floor(lo * 4) / 4; hi = Math.max(Math.ceil(hi * 4) / 4, lo + 0.25);
    var nb = Math.round((hi - lo) * 4), bins = [];
    for (var b = 0; b < nb; b++) bins.push(0);
    vals.forEach(function (v) { bins[Math.min(nb - 1, Math.floor((Math.log10(v) - lo) * 4))]++; });
    var left = 60, plotH = 180, bw = Math.max(14, Math.floor(900 / nb)), w = left + nb * bw + 40, y0 = 24 + plotH, h = y0 + 44;
    var s = svg("svg", { width: w, height: h, role: "img", "class": "histogram" });
    var top = yAxis(s, left, y0, plotH, Math.max.apply(null, bins), "layers");
    bins.forEach(function (c, k) {
      var a = Math.pow(10, lo + k / 4), z = Math.pow(10, lo + (k + 1) / 4), bh = plotH * c / top;
      var r = svg("rect", { x: left + k * bw + 1, y: y0 - bh, width: bw - 2, height: Math.max(bh, c ? 1 : 0), fill: "#4682B4" });
      r.appendChild(svg("title", {}, c + " layers from " + +a.toPrecision(3) + " to " + +z.toPrecision(3) + " ms"));
      s.appendChild(r);
    });
    for (var k = 0; k <= nb; k += 4) {
      var x = left + k * bw;
      s.appendChild(svg("line", { x1: x, y1: y0, x2: x, y2: y0 + 5, stroke: "#999" }));
      s.appendChild(svg("text", { x: x, y: y0 + 18, "text-anchor": "middle", "class": "tick" }, +Math.pow(10, lo + k / 4).toPrecision(2) + ""));
    }
    s.appendChild(svg("line", { x1: left, y1: y0, x2: left + nb * bw, y2: y0, stroke: "#999" }));
    s.appendChild(svg("text", { x: left + nb * bw / 2, y: y0 + 38, "text-anchor": "middle", "class": "axis-title" }, "average latency per layer, ms (log scale)"));
    box.appendChild(chartBox(s));
    if (zero) box.appendChild(el("p", { "class": "sub" }, zero + " layers at 0 ms are not shown"));
    return box;
  }
  // Squarified treemap (Bruls et al.): items [{label, value, color, title}] in a w×h box.
  function squarify(items, x, y, w, h, out) {
    items = items.filter(function (i) { return i.value > 0; });
    var total = 0;
    items.forEach(function (i) { total += i.value; });
    while (items.length) {
      var short = Math.min(w, h), scale = w * h / total, row = [], rowSum = 0, best = Infinity;
      while (items.length) {
        var it = items[0], s2 = rowSum + it.value, mx = Math.max(it.value, row.length ? row[0].value : 0);
        var mn = Math.min(it.value, row.length ? row[row.length - 1].value : it.value);
        var side = s2 * scale / short, worst = Math.max(side / (mn * scale / side), (mx * scale / side) / side);
        if (row.length && worst > best) break;
        best = worst; row.push(items.shift()); rowSum = s2;
      }
      var thick = rowSum * scale / short, pos = 0;
      row.forEach(function (it) {
        var len = it.value * scale / thick;
        out.push(w >= h ? { it: it, x: x, y: y + pos, w: thick, h: len } : { it: it, x: x + pos, y: y, w: len, h: thick });
        pos += len;
      });
      if (w >= h) { x += thick; w -= thick; } else { y += thick; h -= thick; }
      total -= rowSum;
    }
    return out;
  }
  function treemap(plan) {
    var timed = plan.has_profile && plan.total_ms > 0, w = 1000, h = 380;
    var items = plan.by_type.map(function (g) {
      return { label: g[0], value: timed ? g[2] : g[1], color: typeColor(g[0]),
        title: g[0] + ": " + ms(g[2]) + " ms, " + pct(g[3]) + " of the layer sum, " + g[1] + " layers" };
    }).sort(function (a, b) { return b.value - a.value; });
    var s = svg("svg", { width: w, height: h, role: "img", "class": "treemap" });
    squarify(items, 0, 0, w, h, []).forEach(function (c) {
      var g = svg("g", { "data-type": c.it.label });
      var r = svg("rect", { x: c.x, y: c.y, width: Math.max(c.w, 0), height: Math.max(c.h, 0), fill: c.it.color, stroke: "#fff", "stroke-width": 2 });
      g.appendChild(r);
      if (c.w > 60 && c.h > 30) {
        g.appendChild(svg("text", { x: c.x + 5, y: c.y + 15, "class": "tm-label" }, cut(c.it.label, Math.floor(c.w / 7))));
        g.appendChild(svg("text", { x: c.x + 5, y: c.y + 29, "class": "tm-sub" }, timed ? ms(c.it.value) + " ms" : c.it.value + " layers"));
      }
      g.appendChild(svg("title", {}, c.it.title));
      s.appendChild(g);
    });
    var box = el("div");
    box.appendChild(el("p", { "class": "sub" }, "area: " + (timed ? "latency (sum of the type's layer averages)" : "layer count (no profile.json)")));
    box.appendChild(chartBox(s));
    return box;
  }
  // timing.json: latency of each iteration, with p50, p90 and p99 marked.
  function timingPlot(t) {
    var left = 70, right = 150, w = 1100, plotW = w - left - right, plotH = 220, y0 = 24 + plotH, h = y0 + 44;
    var pts = t.points, n = Math.max(t.iterations - 1, 1), lo = t.min, hi = t.max;
    if (hi - lo < 1e-9) { lo -= 0.001; hi += 0.001; }
    var pad = (hi - lo) * 0.05; lo = Math.max(0, lo - pad); hi += pad;
    var s = svg("svg", { width: w, height: h, role: "img", "class": "timing-plot" });
    var Y = function (v) { return y0 - plotH * (v - lo) / (hi - lo); }, X = function (i) { return left + plotW * i / n; };
    var tk = ticks(hi - lo, 5);
    tk.forEach(function (d) {
      var v = lo + d, y = Y(v);
      if (v > hi) return;
      s.appendChild(svg("line", { x1: left - 4, y1: y, x2: left + plotW, y2: y, stroke: "#eee" }));
      s.appendChild(svg("text", { x: left - 6, y: y + 4, "text-anchor": "end", "class": "tick" }, +v.toPrecision(4) + ""));
    });
    s.appendChild(svg("text", { x: left - 6, y: 14, "text-anchor": "end", "class": "axis-title" }, "ms"));
    var d = "";
    pts.forEach(function (p, k) { d += (k ? " L" : "M") + X(p[0]).toFixed(1) + "," + Y(p[1]).toFixed(1); });
    s.appendChild(svg("path", { d: d, fill: "none", stroke: "#4682B4", "stroke-width": 1 }));
    [["p50", t.median, "#2a7"], ["p90", t.p90, "#e90"], ["p99", t.p99, "#c00"]].forEach(function (m) {
      var y = Y(m[1]), g = svg("g", { "data-mark": m[0] });
      g.appendChild(svg("line", { x1: left, y1: y, x2: left + plotW, y2: y, stroke: m[2], "stroke-dasharray": "5,3" }));
      g.appendChild(svg("text", { x: left + plotW + 6, y: y + 4, fill: m[2] }, m[0] + " " + ms(m[1]) + " ms"));
      s.appendChild(g);
    });
    s.appendChild(svg("line", { x1: left, y1: y0, x2: left + plotW, y2: y0, stroke: "#999" }));
    [0, Math.round(n / 2), n].forEach(function (i) {
      s.appendChild(svg("text", { x: X(i), y: y0 + 16, "text-anchor": "middle", "class": "tick" }, String(i)));
    });
    s.appendChild(svg("text", { x: left + plotW / 2, y: y0 + 36, "text-anchor": "middle", "class": "axis-title" }, "iteration"));
    var box = el("div");
    box.appendChild(chartBox(s));
    box.appendChild(el("p", { "class": "sub" }, t.iterations + " iterations: mean " + ms(t.mean) + " ms, min " + ms(t.min) + " ms, max " +
      ms(t.max) + " ms (timing.json, trtexec --exportTimes; end to end per iteration" +
      (t.points.length < t.iterations ? "; each point pair is the lowest and highest of a run of iterations" : "") + ")"));
    return box;
  }
  // trtexec's performance summary as a table with units.
  function perfTable(p) {
    var box = el("div");
    var rows = p.rows.map(function (r) {
      var pc = r[5].map(function (x) { return "p" + x[0] + " " + ms(x[1]); }).join(", ");
      return [r[0], r[1] === null ? "-" : ms(r[1]), r[2] === null ? "-" : ms(r[2]), r[3] === null ? "-" : ms(r[3]),
        r[4] === null ? "-" : ms(r[4]), pc || "-"];
    });
    box.appendChild(table(["metric (trtexec summary)", "min, ms", "max, ms", "mean, ms", "median, ms", "percentiles (log only), ms"], rows, [0, 1, 1, 1, 1, 0]));
    var more = [];
    if (p.throughput_qps !== null) more.push("throughput " + num(p.throughput_qps, 1) + " qps (inferences per second)");
    if (p.host_walltime_s !== null) more.push("host walltime " + num(p.host_walltime_s, 2) + " s");
    if (p.gpu_compute_total_s !== null) more.push("total GPU compute " + num(p.gpu_compute_total_s, 2) + " s");
    if (more.length) box.appendChild(el("p", { "class": "sub" }, more.join("; ")));
    return box;
  }

  // A sortable, paginated table over every row, with a filter and a column
  // chooser. columns: [{label, num, value(row) (sorting), text(row), cls, hidden, title(row)}].
  function dataTable(name, columns, rows, options) {
    options = options || {};
    var pageSize = options.pageSize || 100, page = 0, sortCol = -1, sortDir = 1, q = "";
    var box = el("div", { "class": "data-table", "data-table": name });
    var bar = el("div", { "class": "regions" });
    var filter = el("input", { "class": "filter", name: name + "-filter", placeholder: options.placeholder || "filter" });
    var prev = el("button", { "data-act": "page-prev" }, "\u25c0 previous"), next = el("button", { "data-act": "page-next" }, "next \u25b6");
    var info = el("span", { "class": "page-info" });
    var chooser = el("details", { "class": "columns" }), list = el("div");
    chooser.appendChild(el("summary", null, "columns"));
    columns.forEach(function (c, k) {
      var lab = el("label"), cb = el("input", { type: "checkbox", name: "col-" + k });
      cb.checked = !c.hidden;
      cb.addEventListener("change", function () { c.hidden = !cb.checked; draw(); });
      lab.appendChild(cb);
      lab.appendChild(document.createTextNode(" " + c.label));
      list.appendChild(lab);
    });
    chooser.appendChild(list);
    var extra = options.controls || [];
    [filter].concat(extra).concat([prev, next, info, chooser]).forEach(function (c) { bar.appendChild(c); });
    var holder = el("div", { "class": "scroll" });
    box.appendChild(bar);
    box.appendChild(holder);
    var view = rows.slice();
    function recompute() {
      view = rows.filter(function (r) { return (!options.keep || options.keep(r)) && (!q || options.text(r).toLowerCase().indexOf(q) >= 0); });
      if (sortCol >= 0) {
        var c = columns[sortCol];
        view = view.map(function (r, i) { return [c.value(r), i, r]; });
        view.sort(function (a, b) {
          var x = a[0], y = b[0];
          if (x === y) return a[1] - b[1];
          if (x === null || x === undefined) return 1;
          if (y === null || y === undefined) return -1;
          return (x < y ? -1 : 1) * sortDir;
        });
        view = view.map(function (t) { return t[2]; });
      }
    }
    function draw() {
      var pages = Math.max(1, Math.ceil(view.length / pageSize));
      page = Math.max(0, Math.min(page, pages - 1));
      var t = el("table"), tr = el("tr");
      columns.forEach(function (c, k) {
        if (c.hidden) return;
        var th = el("th", { "data-col": k, "class": (c.num ? "num " : "") + "sortable" + (k === sortCol ? (sortDir > 0 ? " asc" : " desc") : "") },
          c.label + (k === sortCol ? (sortDir > 0 ? " \u25b2" : " \u25bc") : ""));
        th.title = "sort by " + c.label;
        th.addEventListener("click", function () {
          if (sortCol === k) sortDir = -sortDir; else { sortCol = k; sortDir = c.num ? -1 : 1; }
          recompute(); draw();
        });
        tr.appendChild(th);
      });
      t.appendChild(tr);
      view.slice(page * pageSize, (page + 1) * pageSize).forEach(function (r) {
        var row = el("tr");
        if (options.rowClass) row.setAttribute("class", options.rowClass(r));
        columns.forEach(function (c) {
          if (c.hidden) return;
          var td = el("td", { "class": (c.num ? "num " : "") + (c.cls || "") }), v = c.text(r);
          if (v instanceof Node) td.appendChild(v); else td.textContent = v;
          if (c.title) td.title = c.title(r);
          row.appendChild(td);
        });
        t.appendChild(row);
      });
      holder.textContent = "";
      holder.appendChild(t);
      info.textContent = view.length ? "rows " + (page * pageSize + 1) + "\u2013" + Math.min(view.length, (page + 1) * pageSize) + " of " + view.length +
        (view.length < rows.length ? " (" + rows.length + " before filtering)" : "") + ", page " + (page + 1) + " of " + pages : "no rows";
      prev.disabled = page === 0;
      next.disabled = page >= pages - 1;
    }
    filter.addEventListener("input", function () { q = filter.value.toLowerCase(); page = 0; recompute(); draw(); });
    prev.addEventListener("click", function () { page--; draw(); });
    next.addEventListener("click", function () { page++; draw(); });
    box.refresh = function () { page = 0; recompute(); draw(); };
    recompute();
    draw();
    return box;
  }
  function layerTable(plan) {
    var rows = plan.layers.map(function (l, i) { return [i, l]; });
    var hasStreams = plan.layers.some(function (l) { return l[10] >= 0; });
    var cols = [
      { label: "#", num: true, value: function (r) { return r[0]; }, text: function (r) { return String(r[0]); } },
      { label: "layer", value: function (r) { return r[1][0]; }, text: function (r) { return r[1][0]; }, cls: "name", title: function (r) { return r[1][0]; } },
      { label: "type", value: function (r) { return r[1][1]; }, text: function (r) { return r[1][1] + (r[1][9] ? " (Q/DQ)" : ""); } },
      { label: "ms", num: true, value: function (r) { return r[1][3]; }, text: function (r) { return ms(r[1][3]); } },
      { label: "% of layer sum", num: true, value: function (r) { return r[1][4]; }, text: function (r) { return pct(r[1][4]); } },
      { label: "precision", value: function (r) { return r[1][2]; }, text: function (r) { return r[1][2] || "-"; } },
      { label: "output precision", value: function (r) { return r[1][5]; }, text: function (r) { return r[1][5] || "-"; } },
      { label: "tactic", value: function (r) { return r[1][6]; }, text: function (r) { return r[1][6] || "-"; }, cls: "tactic", title: function (r) { return r[1][6]; } },
      { label: "weights", num: true, hidden: true, value: function (r) { return r[1][7]; }, text: function (r) { return mib(r[1][7]); } },
      { label: "activations (in + out)", num: true, hidden: true, value: function (r) { return r[1][8]; }, text: function (r) { return mib(r[1][8]); } },
      { label: "stream", num: true, hidden: !hasStreams, value: function (r) { return r[1][10]; }, text: function (r) { return r[1][10] < 0 ? "-" : String(r[1][10]); } }
    ];
    return dataTable("layers", cols, rows, { placeholder: "filter by name, type, precision or tactic",
      text: function (r) { return r[1][0] + " " + r[1][1] + " " + r[1][2] + " " + r[1][5] + " " + r[1][6]; } });
  }

  function renderPlan(plan, idx) {
    var sec = el("section", { "class": "plan", id: "plan-" + idx });
    sec.setAttribute("data-plan", plan.name);
    sec.appendChild(el("h2", null, plan.name));
    var cards = el("div", { "class": "cards" });
    function card(v, label) { var c = el("div", { "class": "card" }); c.appendChild(el("b", null, v)); c.appendChild(el("span", null, label)); cards.appendChild(c); }
    card(ms(plan.total_ms) + " ms", "sum of layer averages (profile.json)");
    if (plan.timing) card(ms(plan.timing.median) + " ms", "median per iteration, end to end (timing.json)");
    if (plan.perf && plan.perf.throughput_qps !== null) card(num(plan.perf.throughput_qps, 1) + " qps", "throughput (trtexec summary)");
    card(String(plan.layers_count), "layers (" + plan.noops_folded + " NoOps folded)");
    card(plan.reformat[0] + " / " + pct(plan.reformat[2]), "reformat layers / share of the layer sum");
    card(String(plan.fused), "fused layers");
    var warn = plan.findings.filter(function (f) { return f[0] !== "info"; }).length;
    card(plan.findings.length + " (" + warn + " warnings)", "lint findings");
    card(plan.layout, "graph.json layout");
    sec.appendChild(cards);
    sec.appendChild(el("p", { "class": "sub layout" }, "Layout: " + plan.layout_detail));
    if (plan.partial) {
      var n = el("div", { "class": "notes" });
      n.appendChild(el("b", null, "Partial results"));
      var ul = el("ul");
      plan.notes.forEach(function (t) { ul.appendChild(el("li", null, t)); });
      n.appendChild(ul);
      sec.appendChild(n);
    }
    sec.appendChild(el("h3", null, "Latency per layer type"));
    sec.appendChild(hbars(plan.by_type.map(function (g) {
      return { label: g[0], value: g[2], color: typeColor(g[0]), text: ms(g[2]) + " ms, " + pct(g[3]) + " (" + g[1] + " layers)" };
    }), " ms"));
    sec.appendChild(el("h3", null, "Latency by type (treemap)"));
    sec.appendChild(treemap(plan));
    sec.appendChild(el("h3", null, "Layers by precision"));
    sec.appendChild(hbars(plan.by_precision.map(function (g) {
      return { label: g[0], value: g[1], color: precColor(g[0]), text: g[1] + " layers, " + ms(g[2]) + " ms, " + pct(g[3]) };
    }), ""));
    sec.appendChild(el("h3", null, "Latency per layer"));
    sec.appendChild(layerChart(plan));
    sec.appendChild(el("h3", null, "Layer latency histogram"));
    sec.appendChild(histogram(plan));
    if (plan.timing) {
      sec.appendChild(el("h3", null, "Latency per iteration (timing.json)"));
      sec.appendChild(timingPlot(plan.timing));
    }
    sec.appendChild(el("h3", null, "Slowest layers"));
    sec.appendChild(table(["layer", "type", "precision", "ms", "% of layer sum"],
      plan.slowest.map(function (l) { return [l[0], l[1], l[2], ms(l[3]), pct(l[4])]; }), [0, 0, 0, 1, 1]));
    sec.appendChild(el("h3", null, "Reformat layers: " + plan.reformat[0] + ", " + ms(plan.reformat[1]) + " ms, " + pct(plan.reformat[2]) + " of the layer sum"));
    if (plan.reformats.length) {
      sec.appendChild(dataTable("reformats", [
        { label: "layer", value: function (r) { return r[0]; }, text: function (r) { return r[0]; }, cls: "name", title: function (r) { return r[0]; } },
        { label: "origin", value: function (r) { return r[1]; }, text: function (r) { return r[1]; } },
        { label: "conversion", value: function (r) { return r[2] + r[3]; }, text: function (r) { return r[2] + " \u2192 " + r[3]; } },
        { label: "ms", num: true, value: function (r) { return r[4]; }, text: function (r) { return ms(r[4]); } },
        { label: "why", value: function (r) { return r[5]; }, text: function (r) { return r[5]; } }
      ], plan.reformats, { pageSize: 50, placeholder: "filter by layer, origin or conversion",
        text: function (r) { return r.slice(0, 4).join(" "); } }));
    }
    if (plan.reformats_by_origin.length) {
      sec.appendChild(el("h3", null, "Reformats by origin"));
      sec.appendChild(hbars(plan.reformats_by_origin.map(function (g) {
        return { label: g[0], value: g[2], color: g[0] === "QDQ" ? TYPE_COLORS.Quantize : typeColor("Reformat"),
          text: ms(g[2]) + " ms, " + pct(g[3]) + " (" + g[1] + " layers)" };
      }), " ms"));
    }
    sec.appendChild(el("h3", null, "Latency by tactic"));
    var ts = el("div", { "class": "scroll" });
    ts.appendChild(table(["tactic", "layers", "ms", "% of layer sum"], plan.by_tactic.map(function (g) {
      return [g[0], String(g[1]), ms(g[2]), pct(g[3])];
    }), [0, 1, 1, 1]));
    sec.appendChild(ts);
    var cp = plan.compute;
    sec.appendChild(el("h3", null, "Convolutions and GEMMs: " + cp.layers + " layers, " + si(cp.macs) + "MAC, " + ms(cp.ms) + " ms" +
      (cp.gflops === null ? "" : ", " + num(cp.gflops) + " GFLOP/s achieved")));
    var peaks = cp.peaks.map(function (p) { return p[0] + " " + num(p[1]) + " GFLOP/s"; }).join(", ") || "unknown";
    sec.appendChild(el("p", { "class": "sub" }, "Peak compute: " + peaks + " (" + cp.compute_basis + "). Peak memory bandwidth: " +
      (cp.memory_gbps === null ? "unknown" : num(cp.memory_gbps, 1) + " GB/s") + " (" + cp.memory_basis + ")."));
    if (cp.rows.length) {
      var cs = el("div", { "class": "scroll compute" });
      cs.appendChild(table(["layer", "type", "precision", "M", "N", "K", "MACs", "MACs/byte", "ms", "GFLOP/s", "% compute peak", "GB/s", "% memory peak"],
        cp.rows.slice(0, 200).map(function (r) {
          return [r[0], r[1], r[2], r[3] === null ? "-" : String(r[3]), r[4] === null ? "-" : String(r[4]), r[5] === null ? "-" : String(r[5]),
            si(r[6]), num(r[7], 1), ms(r[8]), num(r[9]), r[10] === null ? "-" : num(r[10], 1) + "%", num(r[11], 1), r[12] === null ? "-" : num(r[12], 1) + "%"];
        }), [0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]));
      sec.appendChild(cs);
      if (cp.rows.length > 200) sec.appendChild(el("p", null, "slowest 200 shown; `trtlens engine layers --view compute` lists all"));
    }
    if (plan.pointwise.length) {
      sec.appendChild(el("h3", null, "PointWise layers by number of fused operations"));
      sec.appendChild(table(["operations", "layers", "ms", "% of layer sum", "ms per operation"], plan.pointwise.map(function (p) {
        return [p[0] < 0 ? "?" : String(p[0]), String(p[1]), ms(p[2]), pct(p[3]), p[0] > 0 ? ms(p[4]) : "-"];
      }), [1, 1, 1, 1, 1]));
    }
    sec.appendChild(el("h3", null, "Memory: weights " + mib(plan.memory[0]) + " (bias " + mib(plan.memory[1]) + " more), activation tensors " +
      mib(plan.memory[2]) + " each once (" + mib(plan.memory[3]) + " as layer inputs+outputs)"));
    if (plan.io.length) {
      sec.appendChild(el("h3", null, "Engine inputs and outputs"));
      sec.appendChild(table(["mode", "name", "shape", "format"], plan.io.map(function (t) { return [t[0], t[1], t[2], t[3]]; })));
    }
    sec.appendChild(el("h3", null, "Lint findings"));
    if (plan.findings.length) {
      var sevRank = { error: 0, warning: 1, info: 2 };
      sec.appendChild(dataTable("findings", [
        { label: "severity", value: function (f) { return sevRank[f[0]]; }, text: function (f) { return el("span", { "class": "sev-" + f[0] }, f[0]); } },
        { label: "linter", value: function (f) { return f[1]; }, text: function (f) { return f[1]; } },
        { label: "layer", value: function (f) { return f[2]; }, text: function (f) { return f[2]; }, cls: "name", title: function (f) { return f[2]; } },
        { label: "message", value: function (f) { return f[3]; }, text: function (f) { return f[3]; } },
        { label: "suggestion", value: function (f) { return f[4]; }, text: function (f) { return f[4]; } }
      ], plan.findings, { pageSize: 50, placeholder: "filter by severity, linter, layer or message",
        text: function (f) { return f.slice(0, 4).join(" "); } }));
    } else {
      sec.appendChild(el("p", null, "No findings."));
    }
    sec.appendChild(el("h3", null, "Layers (" + plan.layers.length + "; click a column head to sort)"));
    sec.appendChild(layerTable(plan));
    function from(k) { return plan.sources[k] ? " (" + plan.sources[k] + ")" : ""; }
    plan.logs.forEach(function (l) {
      sec.appendChild(el("p", { "class": "sub" }, "trtexec log " + l[0] + (l[1] ? ", TensorRT " + l[1] : "") + (l[2] ? ", " + l[2] : "") +
        (l[3] ? ": " + l[3] : "")));
    });
    if (plan.device.length || plan.builder.length) {
      sec.appendChild(el("h3", null, "Device" + from(0)));
      sec.appendChild(plan.device.length ? kvTable(plan.device) : el("p", null, "no profile.metadata.json or trtexec log"));
      sec.appendChild(el("h3", null, "Builder" + from(1)));
      sec.appendChild(plan.builder.length ? kvTable(plan.builder) : el("p", null, "no build.metadata.json or trtexec log"));
    }
    if (plan.perf) {
      sec.appendChild(el("h3", null, "Performance summary (trtexec" + (plan.sources[2] ? ", " + plan.sources[2] : "") + ")"));
      sec.appendChild(perfTable(plan.perf));
      var warns = plan.performance.filter(function (p) { return p[0] === "warning"; });
      if (warns.length) sec.appendChild(kvTable(warns));
    } else if (plan.performance.length) {
      sec.appendChild(el("h3", null, "Performance summary (trtexec)" + from(2)));
      sec.appendChild(kvTable(plan.performance));
    }
    if (plan.overlay) sec.appendChild(renderOverlay(plan.overlay));
    sec.appendChild(el("h3", null, "Graph"));
    sec.appendChild(graphView(plan));
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


  // Several plans: what `engine compare` prints, as tables and charts.
  function renderComparison(c) {
    var cmp = el("section", { "class": "plan", id: "comparison" }), P = data.plans, n = P.length;
    cmp.appendChild(el("h2", null, "Comparison"));
    var nums = [0];
    for (var p = 0; p < n; p++) nums.push(1);
    var head = ["metric"].concat(c.labels.map(function (l, k) { return "[" + (k + 1) + "] " + l; }));
    function optMs(v) { return v === null ? "-" : ms(v); }
    var E = c.end_to_end, rows = [
      ["layers"].concat(E.map(function (e) { return String(e.layers); })),
      ["sum of layer averages, ms (profile.json)"].concat(E.map(function (e) { return ms(e.layers_ms); })),
      ["vs first (layer sum)"].concat(E.map(function (e) { return E[0].layers_ms > 0 ? (e.layers_ms / E[0].layers_ms).toFixed(2) + "x" : "-"; })),
      ["end-to-end median per iteration, ms (timing.json)"].concat(E.map(function (e) { return optMs(e.timing_median_ms); })),
      ["end-to-end mean per iteration, ms (timing.json)"].concat(E.map(function (e) { return optMs(e.timing_mean_ms); })),
      ["end-to-end mean, ms (trtexec summary)"].concat(E.map(function (e) { return optMs(e.trtexec_mean_ms); })),
      ["end-to-end median, ms (trtexec summary)"].concat(E.map(function (e) { return optMs(e.trtexec_median_ms); })),
      ["throughput, qps (trtexec summary)"].concat(E.map(function (e) { return e.throughput_qps === null ? "-" : num(e.throughput_qps, 1); }))
    ];
    cmp.appendChild(el("h3", null, "Totals and end-to-end latency"));
    var tot = table(head, rows, nums);
    tot.setAttribute("class", "totals");
    cmp.appendChild(tot);

    // Stacked latency by type, one bar per plan.
    var order = c.types.map(function (t) { return t[0]; });
    var maxTotal = Math.max.apply(null, E.map(function (e) { return e.layers_ms; }).concat([1e-12]));
    var w = 960, left = 300, bh = 24, h = n * (bh + 8) + 10;
    var s = svg("svg", { width: w, height: h, role: "img" });
    P.forEach(function (pl, k) {
      var y = 5 + k * (bh + 8), x = left;
      s.appendChild(svg("text", { x: left - 6, y: y + 16, "text-anchor": "end" }, cut(c.labels[k], 40) + " [" + (k + 1) + "]"));
      c.types.forEach(function (t) {
        var bw = (w - left - 80) * t[1][k] / maxTotal;
        if (!(bw > 0)) return;
        var r = svg("rect", { x: x, y: y, width: bw, height: bh, fill: typeColor(t[0]), stroke: "#fff" });
        r.appendChild(svg("title", {}, t[0] + ": " + ms(t[1][k]) + " ms (" + t[2][k] + " layers)"));
        s.appendChild(r);
        x += bw;
      });
      s.appendChild(svg("text", { x: x + 5, y: y + 16 }, ms(E[k].layers_ms) + " ms"));
    });
    cmp.appendChild(el("h3", null, "Latency by layer type, stacked"));
    cmp.appendChild(legend(typeColor, order));
    cmp.appendChild(chartBox(s));

    // Per-type latency and the speedup of each plan over the first.
    var th = ["type"];
    c.labels.forEach(function (_, k) { th.push("ms [" + (k + 1) + "]"); });
    c.labels.forEach(function (_, k) { th.push("layers [" + (k + 1) + "]"); });
    for (p = 1; p < n; p++) th.push("speedup [" + (p + 1) + "] vs [1]");
    var tnum = th.map(function (_, k) { return k > 0 ? 1 : 0; });
    cmp.appendChild(el("h3", null, "Latency per layer type and speedups"));
    var tt = el("div", { "class": "scroll" });
    tt.appendChild(table(th, c.types.map(function (t) {
      var r = [t[0]];
      t[1].forEach(function (v) { r.push(ms(v)); });
      t[2].forEach(function (v) { r.push(String(v)); });
      for (var q = 1; q < n; q++) r.push(t[1][0] > 0 && t[1][q] > 0 ? (t[1][0] / t[1][q]).toFixed(2) + "x" : "-");
      return r;
    }), tnum));
    tt.firstChild.setAttribute("class", "type-speedups");
    cmp.appendChild(tt);

    cmp.appendChild(el("h3", null, "Layers per precision"));
    var ph = ["precision"].concat(c.labels.map(function (_, k) { return "layers (ms) [" + (k + 1) + "]"; }));
    var pt = table(ph, c.precisions.map(function (x) {
      return [x[0]].concat(x[1].map(function (cnt, k) { return cnt + " (" + ms(x[2][k]) + " ms)"; }));
    }), nums);
    pt.setAttribute("class", "precision-table");
    cmp.appendChild(pt);

    // The aligned layer diff, with the mismatch filters of `engine compare --mismatch`.
    var kinds = [["precision", 3, "precision (input or output)"], ["tactic", 4, "tactic"], ["format", 8, "format"], ["unmatched", 16, "in some plans only"]];
    var wanted = 0, boxes = [el("span", null, "only rows that differ in:")];
    kinds.forEach(function (k) {
      var lab = el("label"), cb = el("input", { type: "checkbox", name: "mismatch-" + k[0] });
      cb.addEventListener("change", function () { wanted = cb.checked ? wanted | k[1] : wanted & ~k[1]; diff.refresh(); });
      lab.appendChild(cb);
      lab.appendChild(document.createTextNode(" " + k[2]));
      boxes.push(lab);
    });
    function speed(r, k) {
      var ref = null;
      for (var q = 0; q < n && ref === null; q++) if (r[3][q] !== null) ref = r[3][q];
      return ref !== null && r[3][k] !== null && r[3][k] > 0 ? ref / r[3][k] : null;
    }
    function perPlan(r, i, flag) {
      var vals = r[i].map(function (v) { return v === null ? "-" : v || "?"; });
      return r[7] & flag ? vals.join(" / ") : vals.filter(function (v) { return v !== "-"; })[0] || "-";
    }
    var cols = [
      { label: "layer", value: function (r) { return r[0]; }, text: function (r) { return r[0]; }, cls: "name", title: function (r) { return r[0]; } },
      { label: "type", value: function (r) { return r[1]; }, text: function (r) { return r[1]; } },
      { label: "matched by", value: function (r) { return r[2]; }, text: function (r) { return r[2] || "-"; } }
    ];
    c.labels.forEach(function (_, k) {
      cols.push({ label: "ms [" + (k + 1) + "]", num: true, value: function (r) { return r[3][k]; }, text: function (r) { return r[3][k] === null ? "-" : ms(r[3][k]); } });
    });
    c.labels.forEach(function (_, k) {
      if (k === 0) return;
      cols.push({ label: "speedup [" + (k + 1) + "]", num: true, value: function (r) { return speed(r, k); },
        text: function (r) { var v = speed(r, k); return v === null ? "-" : v.toFixed(2) + "x"; } });
    });
    cols.push({ label: "input precision", value: function (r) { return perPlan(r, 4, 1); }, text: function (r) { return perPlan(r, 4, 1); } });
    cols.push({ label: "output precision", value: function (r) { return perPlan(r, 5, 2); }, text: function (r) { return perPlan(r, 5, 2); } });
    cols.push({ label: "tactic", value: function (r) { return perPlan(r, 6, 4); }, text: function (r) { return perPlan(r, 6, 4); }, cls: "tactic",
      title: function (r) { return perPlan(r, 6, 4); } });
    cols.push({ label: "differs", value: function (r) { return r[7]; }, text: function (r) {
      var d = [];
      if (r[7] & 1) d.push("input precision");
      if (r[7] & 2) d.push("output precision");
      if (r[7] & 4) d.push("tactic");
      if (r[7] & 8) d.push("format");
      if (r[7] & 16) d.push("unmatched");
      return d.join(", ");
    } });
    var bySig = 0, byName = 0;
    c.rows.forEach(function (r) { bySig += r[2] === "signature"; byName += r[2] === "name"; });
    cmp.appendChild(el("h3", null, "Layers aligned across plans (" + c.rows.length + " rows; " + c.matched_in_all + " in every plan; matched by type and shapes: " +
      bySig + ", by name: " + byName + ")"));
    var diff = dataTable("diff", cols, c.rows, { controls: boxes, placeholder: "filter by layer or type",
      text: function (r) { return r[0] + " " + r[1]; }, keep: function (r) { return !wanted || (r[7] & wanted) !== 0; },
      rowClass: function (r) { return r[7] & 16 ? "unmatched" : r[7] & 3 ? "prec-differs" : ""; } });
    cmp.appendChild(diff);
    return cmp;
  }
  if (data.comparison) root.appendChild(renderComparison(data.comparison));
  data.plans.forEach(function (p, i) { root.appendChild(renderPlan(p, i)); });
  document.body.setAttribute("data-ready", "true");  // for the browser tests
})();
