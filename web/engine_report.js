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
  function num(v, digits) { return v === null || v === undefined ? "-" : v.toFixed(digits === undefined ? 0 : digits); }
  function si(v) {
    var u = ["", " k", " M", " G", " T", " P", " E"], i = 0;
    while (Math.abs(v) >= 1000 && i < 6) { v /= 1000; i++; }
    return i ? v.toPrecision(3) + u[i] : String(Math.round(v));
  }
  function mib(b) { return b >= 1048576 ? (b / 1048576).toFixed(1) + " MiB" : b >= 1024 ? (b / 1024).toFixed(1) + " KiB" : b + " B"; }
  // Per-layer bars of a value (canvas), coloured by layer type.
  function valueChart(plan, index, title) {
    var layers = plan.layers, w = 1000, h = 160;
    var c = el("canvas", { width: w, height: h });
    var ctx = c.getContext && c.getContext("2d");
    var d = el("div", { "class": "chart" });
    d.appendChild(c);
    if (!ctx || !layers.length) return d;
    var max = 0;
    layers.forEach(function (l) { if (l[index] > max) max = l[index]; });
    if (max <= 0) max = 1;
    var bw = w / layers.length;
    layers.forEach(function (l, i) {
      var bh = (h - 4) * l[index] / max;
      ctx.fillStyle = typeColor(l[1]);
      ctx.fillRect(i * bw, h - bh, Math.max(bw - (bw > 3 ? 1 : 0), 0.5), Math.max(bh, l[index] > 0 ? 1 : 0));
    });
    c.title = title;
    return d;
  }
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
        fill = typeColor(l[1]);
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

  function renderPlan(plan, idx) {
    var sec = el("section", { "class": "plan", id: "plan-" + idx });
    sec.setAttribute("data-plan", plan.name);
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
    if (plan.reformats_by_origin.length) {
      sec.appendChild(el("h3", null, "Reformats by origin"));
      sec.appendChild(hbars(plan.reformats_by_origin.map(function (g) {
        return { label: g[0], value: g[2], color: typeColor("Reformat"), text: ms(g[2]) + " ms, " + pct(g[3]) + " (" + g[1] + " layers)" };
      }), " ms"));
    }
    sec.appendChild(el("h3", null, "Latency by tactic"));
    var ts = el("div", { "class": "scroll" });
    ts.appendChild(table(["tactic", "layers", "ms", "% time"], plan.by_tactic.map(function (g) {
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
      sec.appendChild(table(["operations", "layers", "ms", "% time", "ms per operation"], plan.pointwise.map(function (p) {
        return [p[0] < 0 ? "?" : String(p[0]), String(p[1]), ms(p[2]), pct(p[3]), p[0] > 0 ? ms(p[4]) : "-"];
      }), [1, 1, 1, 1, 1]));
    }
    sec.appendChild(el("h3", null, "Memory: weights " + mib(plan.memory[0]) + " (bias " + mib(plan.memory[1]) + " more), activation tensors " +
      mib(plan.memory[2]) + " each once (" + mib(plan.memory[3]) + " as layer inputs+outputs)"));
    sec.appendChild(el("p", { "class": "sub" }, "Weights per layer (bars coloured by type):"));
    sec.appendChild(valueChart(plan, 7, "weights bytes per layer, execution order"));
    sec.appendChild(el("p", { "class": "sub" }, "Activations per layer (inputs + outputs):"));
    sec.appendChild(valueChart(plan, 8, "input + output bytes per layer, execution order"));
    if (plan.io.length) {
      sec.appendChild(el("h3", null, "Engine inputs and outputs"));
      sec.appendChild(table(["mode", "name", "shape", "format"], plan.io.map(function (t) { return [t[0], t[1], t[2], t[3]]; })));
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
    if (plan.performance.length) {
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
  document.body.setAttribute("data-ready", "true");  // for the browser tests
})();
