// End-to-end tests of `trtlens engine report` pages in Debian's headless Chromium.
// Usage: node engine_report.mjs <trtlens binary> <source dir> <artifact dir>
// Writes its plans (a 60-layer chain whose graph is drawn in regions, and the
// v86-compute fixture), drives the pages through playwright-core and saves
// screenshots. Prints "N passed, M failed" and exits 1 on any failure.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

import { EVIL, check, eq, open, run, test } from './harness.mjs';

const [trtlens, source, artifactArg] = process.argv.slice(2);
if (!trtlens || !source) {
  console.error('usage: node engine_report.mjs <trtlens binary> <source dir> <artifact dir>');
  process.exit(2);
}
const artifacts = path.resolve(artifactArg || 'artifacts');
const work = path.join(artifacts, 'engine-work');
fs.rmSync(work, { recursive: true, force: true });
fs.mkdirSync(work, { recursive: true });


// 60 PointWise layers in a chain with a skip connection every 10; layer 42 has a hostile name.
const tensor = (name) => ({ Name: name, Dimensions: [1, 8, 4, 4], 'Format/Datatype': 'Row major linear FP32' });
const layers = [];
for (let i = 0; i < 60; i++) {
  const inputs = [tensor(i ? `t${i - 1}` : 'in')];
  if (i >= 2 && i % 10 === 5) inputs.push(tensor(`t${i - 2}`));
  layers.push({ Name: i === 42 ? `layer_42 ${EVIL}` : `layer_${i}`, LayerType: 'PointWiseV2', ParameterType: 'PointWise',
    NbOperations: 1, Inputs: inputs, Outputs: [tensor(i === 59 ? 'out' : `t${i}`)] });
}
fs.writeFileSync(path.join(work, 'chain.onnx.engine.graph.json'), JSON.stringify({ Layers: layers, Bindings: ['in', 'out'] }));
function report(plan, out, extra = []) {
  execFileSync(trtlens, ['engine', 'report', plan, '-o', path.join(work, out), ...extra], { stdio: 'inherit' });
  return 'file://' + path.join(work, out);
}
const chainUrl = report(path.join(work, 'chain.onnx.engine'), 'chain.html', ['--graph-max-layers', '20', '--region-layers', '25']);
const computeUrl = report(path.join(source, 'tests/fixtures/engine/v86-compute/net.onnx.engine'), 'compute.html',
  ['--log', path.join(source, 'tests/fixtures/engine/logs/trtexec-8.6.log')]);

const layersDrawn = (page) => page.$$eval('.graph g[data-kind="0"]', (gs) => gs.map((g) => +g.getAttribute('data-ref')));

test('a big graph is drawn one region at a time; region boxes and search move between regions', async () => {
  const { page, trouble } = await open(chainUrl);
  eq(await page.locator('select[name="region"] option').count(), 3, 'regions offered');
  let drawn = await layersDrawn(page);
  eq(drawn.length, 25, 'layers of region 1');
  eq(Math.min(...drawn), 0, 'region 1 starts at layer 0');
  eq(await page.locator('.graph g[data-kind="1"]').count(), 1, 'the engine input is drawn in region 1');
  await page.click('button[data-act="next"]');
  drawn = await layersDrawn(page);
  eq(Math.min(...drawn) + ':' + Math.max(...drawn), '25:49', 'region 2 after next');
  // "from region 1" leads back.
  await page.click('.graph g[data-kind="3"][data-ref="0"]');
  eq(await page.inputValue('select[name="region"]'), '0', 'followed the from-region box');
  // Search reaches a layer in region 3 and outlines it.
  await page.fill('input[name="find"]', 'layer_57');
  await page.press('input[name="find"]', 'Enter');
  eq(await page.inputValue('select[name="region"]'), '2', 'region of layer_57');
  eq(await page.getAttribute('.graph g[data-highlight="true"]', 'data-ref'), '57', 'the layer found is outlined');
  // The hostile name is text, not markup.
  await page.selectOption('select[name="region"]', '1');
  check((await page.textContent('.graph')).includes('layer_42 <img'), 'hostile name drawn as text');
  eq(await page.locator('.graph img').count(), 0, 'no element from the name');
  await page.screenshot({ path: path.join(artifacts, 'engine-regions.png'), fullPage: false });
  eq(trouble.join('; '), '', 'trouble');
  await page.close();
});

test('the compute, tactic and log sections show the analysis', async () => {
  const { page, trouble } = await open(computeUrl);
  eq(await page.locator('.scroll.compute tr').count(), 6, 'header and five convolutions/GEMMs');
  const text = await page.textContent('#report');
  for (const want of ['Latency by tactic', 'Reformats by origin', 'PointWise layers by number of fused operations',
    'Peak memory bandwidth: 1555.2 GB/s', 'TensorRT 8.6.1', 'Device (trtexec log'])
    check(text.includes(want), 'page shows: ' + want);
  eq(await page.locator('.graph g[data-kind="0"]').count(), 12, 'every layer drawn in one piece');
  await page.screenshot({ path: path.join(artifacts, 'engine-compute.png'), fullPage: true });
  eq(trouble.join('; '), '', 'trouble');
  await page.close();
});

// Plans for the per-layer views: the v8-fp32 fixture (profile, timing.json and
// a performance summary), two small plans that differ in output precision,
// and a 20,000-layer plan from the benchmark's generator.
const timedUrl = report(path.join(source, 'tests/fixtures/engine/v8-fp32/tiny.onnx.engine'), 'timed.html');
function convPlan(name, outInt8) {
  // Three convolutions reading INT8; plan B writes INT8 from the first two (A writes FP16).
  const i8 = 'Thirty-two wide channel vectorized row major Int8 format', h = 'Channel major FP16 format where channel % 8 == 0';
  const t = (n, f) => ({ Name: n, Dimensions: [1, 32, 8, 8], 'Format/Datatype': f });
  const ls = [0, 1, 2].map((i) => ({ Name: `conv${i}`, LayerType: 'CaskConvolution', ParameterType: 'Convolution',
    TacticName: 'sm80_xmma_fprop_implicit_gemm_interleaved_i8i8_i8i32_f32_nchwkcrs_nchw_tilesize256x128x64_stage3_warpsize4x2x1',
    Inputs: [t(i ? `t${i - 1}` : 'in', i8)], Outputs: [t(i === 2 ? 'out' : `t${i}`, outInt8 && i < 2 ? i8 : h)] }));
  fs.writeFileSync(path.join(work, `${name}.onnx.engine.graph.json`), JSON.stringify({ Layers: ls, Bindings: ['in', 'out'] }));
  fs.writeFileSync(path.join(work, `${name}.onnx.engine.profile.json`), JSON.stringify([{ count: 10 }].concat(ls.map((l, i) =>
    ({ name: l.Name, timeMs: 1, averageMs: 0.1 * (i + 1) * (outInt8 ? 0.5 : 1), medianMs: 0.1, percentage: 33 })))));
  return path.join(work, `${name}.onnx.engine`);
}
const pairUrl = (() => {
  execFileSync(trtlens, ['engine', 'report', convPlan('fp16out', false), convPlan('int8out', true), '-o', path.join(work, 'pair.html')],
    { stdio: 'inherit' });
  return 'file://' + path.join(work, 'pair.html');
})();
const bigPlan = path.join(work, 'big', 'synth.onnx.engine');
execFileSync('python3', [path.join(source, 'bench/engine/gen_engine.py'), '--layers', '20000', '--out', bigPlan], { stdio: 'inherit' });
const bigUrl = report(bigPlan, 'big.html');

const headers = (page, table) => page.$$eval(`[data-table="${table}"] th`, (ths) => ths.map((t) => t.textContent));
const column = (page, table, k) => page.$$eval(`[data-table="${table}"] tr`, (trs, k) =>
  trs.slice(1).map((tr) => tr.children[k].textContent), k);

test('per-layer chart names every layer on an axis, with the layer on hover', async () => {
  const { page, trouble } = await open(chainUrl);
  const names = await page.$$eval('#plan-0 .layer-bars text.layer-name', (ts) => ts.map((t) => t.firstChild.nodeValue));
  eq(names.length, 60, 'a name per layer (60 layers: every layer in execution order)');
  check(names.includes('layer_0') && names.includes('layer_59'), 'names shown: ' + names.slice(0, 3));
  check(names.some((n) => n.startsWith('layer_42 <img')), 'the hostile name is text');
  eq(await page.locator('#plan-0 .layer-bars img').count(), 0, 'no element from the name');
  check((await page.locator('#plan-0 .layer-bars .axis-title').textContent()) === 'ms', 'the value axis says ms');
  const tip = await page.textContent('#plan-0 .layer-bars rect[data-layer="7"] title');
  check(tip.includes('layer_7') && tip.includes('PointWise'), 'hover names the layer: ' + tip);
  // Zoom in: a window of 30 layers, then the next window.
  await page.click('#plan-0 button[data-act="zoom-in"]');
  eq(await page.locator('#plan-0 .layer-bars rect[data-layer]').count(), 30, 'zoomed to 30 layers');
  await page.click('#plan-0 button[data-act="chart-next"]');
  eq(await page.getAttribute('#plan-0 .layer-bars rect[data-layer]', 'data-layer'), '30', 'next window starts at layer 30');
  eq(trouble.join('; '), '', 'trouble');
  await page.close();
});

test('the layer table holds every row, sorts by a column, pages, and chooses columns', async () => {
  const { page, trouble } = await open(chainUrl);
  check((await page.textContent('#plan-0 [data-table="layers"] .page-info')).includes('of 60'), 'all 60 rows (not the first 500 or 100)');
  const h = await headers(page, 'layers');
  const msCol = h.indexOf('ms'), nameCol = h.indexOf('layer');
  check(msCol >= 0 && nameCol >= 0 && msCol < h.indexOf('tactic'), 'ms comes before tactic: ' + h);
  await page.click(`#plan-0 [data-table="layers"] th[data-col="1"]`);  // layer name, ascending
  const names = await column(page, 'layers', nameCol);
  const sorted = names.slice().sort();
  eq(names.join(','), sorted.join(','), 'sorted by name');
  await page.click(`#plan-0 [data-table="layers"] th[data-col="1"]`);
  eq((await column(page, 'layers', nameCol))[0], sorted[sorted.length - 1], 'second click: descending');
  // Hide the tactic column, show the weights column.
  await page.click('#plan-0 [data-table="layers"] details.columns summary');
  await page.uncheck('#plan-0 [data-table="layers"] input[name="col-7"]');
  await page.check('#plan-0 [data-table="layers"] input[name="col-8"]');
  const h2 = await headers(page, 'layers');
  check(!h2.includes('tactic') && h2.includes('weights'), 'columns chosen: ' + h2);
  eq(trouble.join('; '), '', 'trouble');
  await page.close();
});

test('timing.json plot marks p50/p90/p99; histogram, treemap, labelled performance table', async () => {
  const { page, trouble } = await open(timedUrl);
  for (const m of ['p50', 'p90', 'p99'])
    check((await page.locator(`.timing-plot g[data-mark="${m}"] text`).textContent()).startsWith(m + ' '), m + ' marked');
  check(await page.locator('.histogram rect').count() > 0, 'a histogram');
  check(await page.locator('.treemap g[data-type]').count() > 0, 'a treemap by type');
  const perf = await page.textContent('#plan-0');
  for (const want of ['median per iteration, end to end (timing.json)', 'throughput (trtexec summary)', 'mean, ms', 'Latency per iteration (timing.json)'])
    check(perf.includes(want), 'page shows: ' + want);
  eq(trouble.join('; '), '', 'trouble');
  await page.close();
});

test('the comparison shows end-to-end figures, precision and type tables and the layer diff with mismatch filters', async () => {
  const { page, trouble } = await open(pairUrl);
  const text = await page.textContent('#comparison');
  for (const want of ['throughput, qps (trtexec summary)', 'end-to-end median per iteration', 'Layers per precision',
    'Latency per layer type and speedups', 'speedup [2] vs [1]'])
    check(text.includes(want), 'comparison shows: ' + want);
  check((await page.textContent('#comparison .type-speedups')).includes('2.00x'), 'per-type speedup of plan 2');
  check((await page.textContent('#comparison [data-table="diff"] .page-info')).includes('of 3'), 'three aligned rows');
  await page.check('#comparison input[name="mismatch-precision"]');
  const info = await page.textContent('#comparison [data-table="diff"] .page-info');
  check(info.startsWith('rows 1\u20132 of 2'), 'two rows differ in output precision: ' + info);
  const diffs = await page.$$eval('#comparison [data-table="diff"] tr', (trs) => trs.slice(1).map((tr) => tr.lastChild.textContent));
  check(diffs.every((d) => d.startsWith('output precision') && !d.includes('input precision')), 'both flagged by output precision: ' + diffs);
  eq(trouble.join('; '), '', 'trouble');
  await page.close();
});

test('a 20,000-layer plan: aggregated chart with names, sortable table, page ready (time printed)', async () => {
  const t0 = Date.now();
  const { page, trouble } = await open(bigUrl);
  const ready = Date.now() - t0;
  console.log(`  20,000-layer report: page ready in ${ready} ms (bench/README.md; not asserted)`);
  const bars = await page.$$eval('#plan-0 .rank-bars text.layer-name', (ts) => ts.map((t) => t.firstChild.nodeValue));
  eq(bars.length, 41, 'the 40 slowest layers and "other"');
  eq(bars[40], 'other (16990 layers)', 'the rest (17,030 layers after folding) as one bar');
  check((await page.textContent('#plan-0 [data-table="layers"] .page-info')).includes('of 1'), 'rows paginated');
  const h = await headers(page, 'layers');
  await page.click(`#plan-0 [data-table="layers"] th[data-col="3"]`);  // ms, largest first
  const ms = (await column(page, 'layers', h.indexOf('ms'))).map(Number);
  check(ms.every((v, i) => i === 0 || ms[i - 1] >= v), 'sorted by latency, slowest first');
  // At 1600 px the ms and % columns are on screen whatever the tactic names.
  await page.setViewportSize({ width: 1600, height: 900 });
  const box = await page.locator('#plan-0 [data-table="layers"] th[data-col="4"]').boundingBox();
  check(box && box.x + box.width <= 1600, '% column within 1600 px: ' + JSON.stringify(box));
  await page.screenshot({ path: path.join(artifacts, 'engine-20k.png'), fullPage: false });
  eq(trouble.join('; '), '', 'trouble');
  await page.close();
});

await run(artifacts);
