// Browser tests of a report page on a DLA target (`report --target orin-dla`): the placement's summary
// against `check --format json`, the problem keys and the search filter reaching GPU fallbacks, the minimap
// coloured by placement, and the summary bar fitting a 1500 px window.
// Usage: node report_dla.mjs <trtlens binary> <artifact dir> [model cache]
// The model cache (tests/models/export.py's torchvision exports) adds mobilenet_v2; without it those
// checks are skipped and said so.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { check, eq, open, run, test } from './harness.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const [trtlens, artifactArg, cacheArg] = process.argv.slice(2);
if (!trtlens) {
  console.error('usage: node report_dla.mjs <trtlens binary> <artifact dir> [model cache]');
  process.exit(2);
}
const artifacts = path.resolve(artifactArg || path.join(here, 'artifacts'));
const work = path.join(artifacts, 'work-dla');  // run.mjs owns artifacts/work and may run beside this
fs.rmSync(work, { recursive: true, force: true });
fs.mkdirSync(work, { recursive: true });
const python = fs.existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';
execFileSync(python, [path.join(here, 'make_models.py'), work], { stdio: 'inherit' });

const DLA = ['--target', 'orin-dla'];
function report(model, out, extra) {
  execFileSync(trtlens, ['report', model, '-o', path.join(work, out), ...extra], { stdio: 'inherit' });
  return 'file://' + path.join(work, out);
}
// check's DLA summary for a runtime: the json's `dla` object and the text's summary line.
// check exits 1 on a model that does not convert (fasterrcnn): its output is read all the same.
function checkOut(args) {
  try {
    return execFileSync(trtlens, args, { maxBuffer: 1 << 28 }).toString();
  } catch (e) {
    if (e.status === 1) return e.stdout.toString();
    throw e;
  }
}
function checkDla(model, release, precision) {
  const args = ['check', model, '--trt', release, '--precision', precision, ...DLA];
  const json = JSON.parse(checkOut([...args, '--format', 'json'])).dla;
  const text = checkOut(args).split('\n').find((l) => l.startsWith('DLA ('));
  return { json, text };
}

const chain = path.join(work, 'dla_chain.onnx');
const chainUrl = report(chain, 'dla_chain.html', [...DLA, '--trt', '8.5', '--precision', 'fp16']);
const dynamicUrl = report(path.join(work, 'dla_dynamic.onnx'), 'dla_dynamic.html', [...DLA, '--trt', '8.5', '--precision', 'fp16']);
const mobilenet = cacheArg ? path.join(cacheArg, 'mobilenet_v2_op17.onnx') : null;
const mobilenetUrl = mobilenet && fs.existsSync(mobilenet)
  ? report(mobilenet, 'mobilenet_v2.html', [...DLA, '--trt', '8.5', '--precision', 'fp16']) : null;
if (!mobilenetUrl) console.log('# mobilenet_v2_op17.onnx is not in the model cache: its checks are skipped');
// fasterrcnn: a dynamic backbone, so some Convs' MACs are unknown and others known.
const frcnn = cacheArg ? path.join(cacheArg, 'fasterrcnn_mobilenet_op17.onnx') : null;
const frcnnUrl = frcnn && fs.existsSync(frcnn)
  ? report(frcnn, 'fasterrcnn.html', [...DLA, '--trt', '8.5', '--precision', 'fp16']) : null;

const FIELDS = ['dla_nodes', 'gpu_fallback_nodes', 'unsupported_nodes', 'dla_macs', 'transitions', 'loadables'];
// The numbers the page shows, by field, and its text.
const pageDla = (page) => page.evaluate(() => {
  const box = document.getElementById('dla-summary');
  const out = { hidden: box.hidden, text: box.textContent, fields: {} };
  box.querySelectorAll('[data-field]').forEach((e) => { out.fields[e.dataset.field] = +e.dataset.value; });
  return out;
});
async function setRuntime(page, release, precision) {
  await page.selectOption('select[name="release"]', release);
  await page.selectOption('select[name="precision"]', precision);
}
async function sameAsCheck(page, model, release, precision, what) {
  const { json, text } = checkDla(model, release, precision);
  const shown = await pageDla(page);
  check(!shown.hidden, what + ': the DLA summary is shown');
  for (const f of FIELDS) {
    // A field the page leaves out when it is 0 (unsupported nodes) reads as 0.
    eq(shown.fields[f] ?? 0, json[f], `${what}: ${f}`);
  }
  const placed = json.dla_nodes + json.gpu_fallback_nodes + json.unsupported_nodes;
  // The shares as check's text line prints them (one decimal), the counts as words.
  const [, nodePct, macPct] = /nodes \(([\d.]+)%\), ([\d.]+)% of MACs/.exec(text);
  check(shown.text.includes(`${json.dla_nodes} of ${placed} node`) && shown.text.includes(`(${nodePct}%)`),
    `${what}: node share (check: ${text}) in: ${shown.text}`);
  if (json.total_macs > 0) check(shown.text.includes(`${macPct}% of MACs`), `${what}: MAC share ${macPct}% in: ${shown.text}`);
  check(shown.text.includes(`${json.transitions} DLA\u2194GPU transition`), `${what}: transitions in: ${shown.text}`);
  check(shown.text.includes(`${json.loadables} DLA loadable`) && shown.text.includes(`${json.max_loadables} per core`),
    `${what}: loadables in: ${shown.text}`);
  check(shown.text.includes(`TensorRT ${json.release} DLA rules`), `${what}: the release in: ${shown.text}`);
}

test('the DLA summary equals check --format json and follows release, precision and target', async () => {
  const { page, trouble } = await open(chainUrl);
  await sameAsCheck(page, chain, '8.5', 'fp16', 'dla_chain 8.5 fp16');
  const first = await pageDla(page);
  eq(first.fields.loadables, 3, 'three DLA loadables');
  eq(first.fields.transitions, 5, 'five transitions');
  await page.screenshot({ path: path.join(artifacts, 'dla-summary.png') });
  await setRuntime(page, '8.6', 'fp16');
  await sameAsCheck(page, chain, '8.6', 'fp16', 'dla_chain 8.6 fp16');
  await setRuntime(page, '8.5', 'fp32');  // the DLA runs FP16 and INT8 only: every node on the GPU
  await sameAsCheck(page, chain, '8.5', 'fp32', 'dla_chain 8.5 fp32');
  eq((await pageDla(page)).fields.dla_nodes, 0, 'nothing on the DLA at FP32');
  await setRuntime(page, '10.3', 'int8');
  await sameAsCheck(page, chain, '10.3', 'int8', 'dla_chain 10.3 int8');
  // Target none: no placement, no line; the target again: the line is back.
  await page.selectOption('select[name="target"]', '');
  eq((await pageDla(page)).hidden, true, 'no DLA summary without the target');
  await page.selectOption('select[name="target"]', 'orin-dla');
  await setRuntime(page, '8.5', 'fp16');
  await sameAsCheck(page, chain, '8.5', 'fp16', 'dla_chain back on the target');
  eq(trouble.join('; '), '', 'trouble');
  await page.close();
  if (!mobilenetUrl) return;
  const m = await open(mobilenetUrl);
  await sameAsCheck(m.page, mobilenet, '8.5', 'fp16', 'mobilenet_v2 8.5 fp16');
  await setRuntime(m.page, '10.3', 'fp16');
  await sameAsCheck(m.page, mobilenet, '10.3', 'fp16', 'mobilenet_v2 10.3 fp16');
  eq(m.trouble.join('; '), '', 'trouble on mobilenet_v2');
  await m.page.close();
});

test('some MACs unknown: the page gives the known ones and how many are unknown, no share', async () => {
  if (!frcnnUrl) { console.log('# fasterrcnn_mobilenet_op17.onnx is not in the model cache: skipped'); return; }
  const { json } = checkDla(frcnn, '8.5', 'fp16');
  check(json.macs_unknown_nodes > 0 && json.total_macs > 0, 'fasterrcnn has known and unknown MACs: ' + JSON.stringify(json));
  const { page, trouble } = await open(frcnnUrl);
  const shown = await pageDla(page);
  eq(shown.fields.dla_macs, json.dla_macs, 'dla_macs');
  check(shown.text.includes(`of at least ${json.total_macs.toLocaleString('en-US')} known`) &&
    shown.text.includes(`${json.macs_unknown_nodes} nodes' MACs unknown`) && !shown.text.includes('% of MACs'),
    'unknown MACs named, no share: ' + shown.text);
  eq(trouble.join('; '), '', 'trouble');
  await page.close();
});

test('no MAC share when no node has known MACs: the page says so', async () => {
  const { page, trouble } = await open(dynamicUrl);
  const shown = await pageDla(page);
  check(shown.text.includes('MACs unknown') && !shown.text.includes('% of MACs'), 'MACs unknown: ' + shown.text);
  eq(shown.fields.gpu_fallback_nodes, checkDla(path.join(work, 'dla_dynamic.onnx'), '8.5', 'fp16').json.gpu_fallback_nodes, 'fallbacks');
  eq(trouble.join('; '), '', 'trouble');
  await page.close();
});

const selected = (page) => page.getAttribute('#drawer', 'data-selected');
const idOf = (page, name) => page.evaluate((nm) => {
  const n = window.trtlens.data.graphs[0].nodes.find((x) => x.n === nm);
  return n ? '/' + n.ix : null;
}, name);

test('next / previous problem reach the nodes that fall back to the GPU', async () => {
  const { page, trouble } = await open(chainUrl);
  eq(await page.inputValue('select[name="problem-kind"]'), 'UNSUPPORTED,UNKNOWN,GPU_FALLBACK', 'GPU fallbacks count by default');
  eq(await page.textContent('#problem-pos'), '3 problems', 'three nodes leave the DLA');
  const [big1, big2, gap] = [await idOf(page, 'big1'), await idOf(page, 'big2'), await idOf(page, 'gap')];
  await page.keyboard.press('n');
  eq(await selected(page), big1, 'n: the first GPU fallback');
  eq(await page.getAttribute('.tabs button[data-tab="verdict"]', 'aria-selected'), 'true', 'on Verdict');
  check((await page.textContent('#drawer-body .dla-line')).includes('kernel size 33 > 32'), 'the drawer says why');
  eq(await page.textContent('#problem-pos'), '1 of 3', 'position');
  await page.keyboard.press('n');
  eq(await selected(page), big2, 'n: the second');
  await page.keyboard.press('n');
  eq(await selected(page), gap, 'n: the GlobalAveragePool');
  await page.keyboard.press('p');
  eq(await selected(page), big2, 'p: back');
  // Only GPU fallbacks, or the verdicts alone (no node is a problem for TensorRT itself).
  await page.selectOption('select[name="problem-kind"]', 'GPU_FALLBACK');
  eq(await page.textContent('#problem-pos'), '2 of 3', 'GPU fallback (DLA) only');
  await page.selectOption('select[name="problem-kind"]', 'UNSUPPORTED,UNKNOWN');
  eq(await page.textContent('#problem-pos'), 'no problems', 'unsupported or unknown');
  // Without the target, GPU fallback is no problem: there is no placement.
  await page.selectOption('select[name="problem-kind"]', 'UNSUPPORTED,UNKNOWN,GPU_FALLBACK');
  await page.selectOption('select[name="target"]', '');
  eq(await page.textContent('#problem-pos'), 'no problems', 'target none');
  await page.selectOption('select[name="target"]', 'orin-dla');
  await setRuntime(page, '8.5', 'fp16');
  // The summary's GPU-fallback count is a way in: the first of them, whichever node is open.
  await page.keyboard.press('Escape');
  await page.click(`[data-node="${gap}"]`);
  await page.click('#dla-summary [data-field="gpu_fallback_nodes"]');
  eq(await selected(page), big1, 'the summary\'s GPU fallbacks open the first');
  eq(await page.inputValue('select[name="problem-kind"]'), 'GPU_FALLBACK', 'and select that kind');
  eq(trouble.join('; '), '', 'trouble');
  await page.close();
  if (!mobilenetUrl) return;
  const m = await open(mobilenetUrl);
  eq(await m.page.textContent('#problem-pos'), '3 problems', 'mobilenet_v2: three GPU fallbacks');
  await m.page.keyboard.press('n');
  eq(await m.page.getAttribute(`[data-node="${await selected(m.page)}"]`, 'data-dla'), 'GPU_FALLBACK', 'n reaches one');
  eq(await m.page.textContent('#drawer-name'), '/GlobalAveragePool', 'the GlobalAveragePool first');
  await m.page.screenshot({ path: path.join(artifacts, 'dla-next-problem.png') });
  eq(m.trouble.join('; '), '', 'trouble on mobilenet_v2');
  await m.page.close();
});

test('the search filter offers DLA and GPU fallback (DLA)', async () => {
  const { page, trouble } = await open(chainUrl);
  const results = () => page.$$eval('#search-results li[data-target]', (l) => l.map((x) => [x.textContent, x.dataset.dla]));
  await page.fill('#search', 'out');
  await page.waitForSelector('#search-panel:not([hidden])');
  await page.selectOption('select[name="filter-verdict"]', 'place:GPU_FALLBACK');
  await page.fill('#search', '');  // the filters work without a query
  await page.waitForFunction(() => document.querySelectorAll('#search-results li[data-target]').length === 3);
  let hits = await results();
  eq(hits.length, 3, 'three GPU fallbacks: ' + JSON.stringify(hits));
  check(hits.every(([t, d]) => d === 'GPU_FALLBACK' && /big1|big2|gap/.test(t)), 'big1, big2, gap: ' + JSON.stringify(hits));
  await page.selectOption('select[name="filter-verdict"]', 'place:DLA');
  hits = await results();
  eq(hits.length, 4, 'four on the DLA: ' + JSON.stringify(hits));
  check(hits.every(([, d]) => d === 'DLA'), 'all DLA');
  // With an op_type too: the Convs on the DLA.
  await page.selectOption('select[name="filter-op"]', 'Conv');
  eq((await results()).length, 3, 'c1, c2, c3');
  await page.screenshot({ path: path.join(artifacts, 'dla-search.png') });
  await page.selectOption('select[name="filter-op"]', '');
  // Without the target the placement filters are off.
  await page.selectOption('select[name="target"]', '');
  eq(await page.$eval('select[name="filter-verdict"] option[value="place:DLA"]', (o) => o.disabled), true, 'disabled without the target');
  eq(await page.inputValue('select[name="filter-verdict"]'), '', 'the filter was reset');
  eq(trouble.join('; '), '', 'trouble');
  await page.close();
});

// Pixels of the minimap canvas by colour: [DLA blue, GPU amber].
const minimapPixels = (page) => page.$eval('#minimap-canvas', (c) => {
  const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
  let blue = 0, amber = 0;
  for (let j = 0; j < d.length; j += 4) {
    if (d[j] === 0x54 && d[j + 1] === 0xae && d[j + 2] === 0xff) blue++;
    if (d[j] === 0xbf && d[j + 1] === 0x87 && d[j + 2] === 0x00) amber++;
  }
  return [blue, amber];
});

test('the minimap is coloured by DLA placement on a DLA target; verdicts on request', async () => {
  const { page, trouble } = await open(chainUrl);
  check(await page.isVisible('select[name="minimap-color"]'), 'the colour select is shown on the target');
  eq(await page.inputValue('select[name="minimap-color"]'), 'placement', 'placement by default');
  eq(await page.getAttribute('#minimap', 'data-color'), 'placement', 'minimap mode');
  let [blue, amber] = await minimapPixels(page);
  check(blue > 0 && amber > 0, `DLA nodes blue and GPU fallbacks amber: ${blue} / ${amber}`);
  await page.locator('#minimap').screenshot({ path: path.join(artifacts, 'dla-minimap.png') });
  await page.selectOption('select[name="minimap-color"]', 'verdict');
  [blue, amber] = await minimapPixels(page);
  eq(blue + amber, 0, 'by verdict: every node is supported, nothing blue or amber');
  await page.selectOption('select[name="minimap-color"]', 'placement');
  // FP32: the DLA runs none of it, every node falls back.
  await page.selectOption('select[name="precision"]', 'fp32');
  [blue, amber] = await minimapPixels(page);
  check(blue === 0 && amber > 0, `at FP32 all amber: ${blue} / ${amber}`);
  await page.selectOption('select[name="target"]', '');
  check(!(await page.isVisible('select[name="minimap-color"]')), 'no colour select without the target');
  eq(await page.getAttribute('#minimap', 'data-color'), 'verdict', 'verdicts without the target');
  eq((await minimapPixels(page))[0], 0, 'nothing blue');
  eq(trouble.join('; '), '', 'trouble');
  await page.close();
  if (!mobilenetUrl) return;
  const m = await open(mobilenetUrl);
  [blue, amber] = await minimapPixels(m.page);
  check(blue > 0 && amber > 0, `mobilenet_v2: the DLA body and the GPU tail: ${blue} / ${amber}`);
  await m.page.locator('#minimap').screenshot({ path: path.join(artifacts, 'dla-minimap-mobilenet.png') });
  eq(m.trouble.join('; '), '', 'trouble on mobilenet_v2');
  await m.page.close();
});

// A plain report of the same model: the bar without the DLA line and with the plain problem kinds.
const plainUrl = report(mobilenetUrl ? mobilenet : chain, 'plain.html', ['--trt', '8.5', '--precision', 'fp16']);

test('at 1500 px (and 1200 - 1920 px) the summary bar fits: nothing is cut at the right edge', async () => {
  const pages = [[chainUrl, 'dla_chain'], [mobilenetUrl, 'mobilenet_v2'], [plainUrl, 'plain']];
  for (const [url, what] of pages) {
    if (!url) continue;
    const { page, trouble } = await open(url);
    // Every width from 1200 to 1920 px, 1500 last (its screenshot): where the bar wraps moves with the width.
    const widths = [];
    for (let w = 1200; w <= 1920; w += 20) widths.push(w);
    for (const width of [...widths, 1500]) {
      await page.setViewportSize({ width, height: 900 });
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
      const m = await page.evaluate(() => {
        const box = (sel) => document.querySelector(sel).getBoundingClientRect();
        const bar = document.getElementById('summary');
        return { scroll: document.documentElement.scrollWidth, summaryScroll: bar.scrollWidth, summaryWidth: bar.clientWidth,
          unsupported: box('#unsupported summary').right, unsupportedHeight: box('#unsupported summary').height,
          problems: box('#problems').right, dla: document.getElementById('dla-summary').hidden ? 0 : box('#dla-summary').right };
      });
      const at = `${what} at ${width} px: ${JSON.stringify(m)}`;
      check(m.scroll <= width, 'no horizontal scroll, ' + at);
      check(m.summaryScroll <= m.summaryWidth, 'the summary bar does not overflow, ' + at);
      check(m.unsupported <= width && m.dla <= width && m.problems <= width, 'every panel inside the window, ' + at);
      check(m.unsupportedHeight < 24, '"Unsupported nodes: 0" on one line, ' + at);
    }
    await page.screenshot({ path: path.join(artifacts, `dla-1500-${what}.png`) });
    eq(trouble.join('; '), '', 'trouble');
    await page.close();
  }
});

await run(artifacts);
