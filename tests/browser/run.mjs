// End-to-end tests of `trtlens report` pages in Debian's headless Chromium.
// Usage: node run.mjs <trtlens binary> <artifact dir>
// Generates its models (make_models.py, python3-onnx), writes reports with the
// binary, drives the pages through playwright-core and saves screenshots into
// the artifact dir. Prints "N passed, M failed" and exits 1 on any failure.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

import { EVIL, check, eq, open, run, test } from './harness.mjs';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const [trtlens, artifactArg] = process.argv.slice(2);
if (!trtlens) {
  console.error('usage: node run.mjs <trtlens binary> <artifact dir>');
  process.exit(2);
}
const artifacts = path.resolve(artifactArg || path.join(here, 'artifacts'));
const work = path.join(artifacts, 'work');
// Only our own leftovers are removed: the artifact dir may hold other things.
fs.rmSync(work, { recursive: true, force: true });
fs.mkdirSync(work, { recursive: true });


const python = fs.existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';
execFileSync(python, [path.join(here, 'make_models.py'), work], { stdio: 'inherit' });

function report(model, out, extra = []) {
  execFileSync(trtlens, ['report', path.join(work, model), '-o', path.join(work, out), ...extra], { stdio: 'inherit' });
  return 'file://' + path.join(work, out);
}
const demoUrl = report('demo.onnx', 'demo.html', ['--trt', '8.6', '--precision', 'fp32']);
const chainUrl = report('chain.onnx', 'chain.html', ['--region-nodes', '200']);
const functionUrl = report('function.onnx', 'function.html');
const overlayUrl = report('overlay.onnx', 'overlay.html',
  ['--engine', path.join(here, '..', 'fixtures', 'engine', 'overlay', 'overlay.onnx.engine')]);

const verdictOf = (page, id) => page.getAttribute(`[data-node="${id}"]`, 'data-verdict');

test('the page loads from one file: no request, no script error', async () => {
  const { page, trouble } = await open(demoUrl);
  eq(await page.locator('[data-node]').count(), 5, 'main-graph nodes drawn');
  eq(await page.inputValue('select[name="release"]'), '8.6', 'initial release');
  eq(await page.inputValue('select[name="precision"]'), 'fp32', 'initial precision');
  check((await page.locator('select[name="release"] option').count()) >= 30, 'every release is offered');
  await page.screenshot({ path: path.join(artifacts, 'report.png') });
  eq(trouble.join('; '), '', 'trouble');
  await page.close();
});

test('INT8 re-colours the BatchNormalization badge without a reload', async () => {
  const { page, trouble } = await open(demoUrl);
  await page.evaluate(() => { window.__sameDocument = true; });
  eq(await verdictOf(page, '/1'), 'SUPPORTED', 'bn1 at FP32');
  const green = await page.$eval('[data-node="/1"] .badge circle', (c) => getComputedStyle(c).fill);
  const counts = await page.textContent('#counts');
  await page.selectOption('select[name="precision"]', 'int8');
  eq(await verdictOf(page, '/1'), 'FALLBACK', 'bn1 at INT8');
  eq(await verdictOf(page, '/0'), 'SUPPORTED', 'conv1 at INT8 (it has an INT8 kernel)');
  const amber = await page.$eval('[data-node="/1"] .badge circle', (c) => getComputedStyle(c).fill);
  check(green !== amber, `badge colour changed (${green} -> ${amber})`);
  check((await page.textContent('#counts')) !== counts, 'summary counts follow the runtime');
  eq(await page.evaluate(() => window.__sameDocument), true, 'same document');
  await page.screenshot({ path: path.join(artifacts, 'report-int8.png') });
  eq(trouble.join('; '), '', 'trouble');
  await page.close();
});

test('the region toggle colours nodes by TensorRT region; the summary lists regions', async () => {
  const { page, trouble } = await open(demoUrl);
  check(/TensorRT 8\.6 FP32: \d+ regions? \(/.test(await page.textContent('#partition-summary')), 'summary lists the regions');
  const fill = () => page.$eval('[data-node="/0"] rect.box', (r) => getComputedStyle(r).fill);
  const plain = await fill();
  await page.check('#by-region');
  const coloured = await fill();
  check(plain !== coloured, `node coloured by its region (${plain} -> ${coloured})`);
  await page.uncheck('#by-region');
  eq(await fill(), plain, 'toggle off restores the verdict colours');
  eq(trouble.join('; '), '', 'trouble');
  await page.close();
});

test('the drawer lists the supported runtimes of the op', async () => {
  const { page, trouble } = await open(demoUrl);
  await page.click('[data-node="/3"]');
  await page.click('.tabs button[data-tab="runtimes"]');
  const reshape86 = await page.textContent('#drawer-body tr[data-release="8.6"]');
  check(reshape86.includes('FP32, FP16, INT32, INT8, BOOL'), 'Reshape at 8.6: ' + reshape86);
  await page.click('[data-node="/1"]');
  eq(await page.getAttribute('#drawer', 'data-selected'), '/1', 'drawer follows the click');
  const bn86 = await page.textContent('#drawer-body tr[data-release="8.6"]');
  check(bn86.includes('FP32, FP16') && !bn86.includes('INT8'), 'BatchNormalization at 8.6: ' + bn86);
  eq(await page.getAttribute('#drawer-body tr.current', 'data-release'), '8.6', 'selected release highlighted');
  await page.click('.tabs button[data-tab="io"]');
  const io = await page.textContent('#drawer-body');
  check(io.includes('bn.scale') && io.includes('initializer') && io.includes('[1, 4, 6, 6]'), 'inputs/outputs: ' + io);
  await page.screenshot({ path: path.join(artifacts, 'drawer.png') });
  eq(trouble.join('; '), '', 'trouble');
  await page.close();
});

test('a node named like markup shows as text and runs nothing', async () => {
  const { page, trouble } = await open(demoUrl);
  eq(await page.textContent('[data-node="/2"] text.name'), EVIL, 'name drawn as text');
  await page.click('[data-node="/2"]');
  eq(await page.textContent('#drawer-name'), EVIL, 'name in the drawer');
  await page.fill('#search', '<img');
  await page.press('#search', 'Enter');
  eq(await page.getAttribute('#drawer', 'data-selected'), '/2', 'found by search');
  eq(await page.locator('img').count(), 0, 'img elements');
  eq(trouble.join('; '), '', 'trouble');
  await page.close();
});

test('unsupported nodes are listed and centre the graph when clicked', async () => {
  const { page, trouble } = await open(demoUrl);
  eq(await page.textContent('#unsupported-count'), '0', 'none at 8.6');
  await page.selectOption('select[name="release"]', '7.0');
  eq(await verdictOf(page, '/4'), 'UNSUPPORTED', 'If at 7.0');
  eq(await page.textContent('#unsupported-count'), '1', 'one at 7.0');
  await page.click('#unsupported summary');
  await page.click('#unsupported-list button[data-target="/4"]');
  eq(await page.getAttribute('#drawer', 'data-selected'), '/4', 'drawer opened');
  await page.click('.tabs button[data-tab="verdict"]');
  const verdict = await page.textContent('#drawer-body');
  check(verdict.includes('UNSUPPORTED') && verdict.includes('7.0'), 'verdict tab: ' + verdict);
  // Centred: the node's box is in the middle of the drawing area the drawer leaves free.
  const box = await page.locator('[data-node="/4"] rect.box').boundingBox();
  const stage = await page.locator('#canvas').boundingBox();
  const drawer = await page.locator('#drawer').boundingBox();
  const dx = Math.abs(box.x + box.width / 2 - (stage.x + (stage.width - drawer.width) / 2));
  const dy = Math.abs(box.y + box.height / 2 - (stage.y + stage.height / 2));
  check(dx < 5 && dy < 5, `centred (off by ${dx}, ${dy})`);
  eq(trouble.join('; '), '', 'trouble');
  await page.close();
});

test('If bodies can be entered and left', async () => {
  const { page, trouble } = await open(demoUrl);
  await page.click('[data-node="/4"]');
  await page.click('#drawer-subs button[data-open="branch/then_branch"]');
  await page.waitForSelector('[data-node="branch/then_branch/0"]');
  eq(await page.locator('[data-node="/0"]').count(), 0, 'main graph left');
  eq(await page.locator('#crumbs button').count(), 2, 'breadcrumb depth');
  await page.screenshot({ path: path.join(artifacts, 'subgraph.png') });
  await page.click('#crumbs button[data-graph=""]');
  await page.waitForSelector('[data-node="/0"]');
  eq(await page.locator('[data-node="branch/then_branch/0"]').count(), 0, 'body left');
  eq(trouble.join('; '), '', 'trouble');
  await page.close();
});

test('a local function body opens on double-click', async () => {
  const { page, trouble } = await open(functionUrl);
  await page.dblclick('[data-node="/1"]');
  await page.waitForSelector('[data-node="fn:Swish/0"]');
  eq(await page.locator('[data-node]').count(), 2, 'body nodes drawn');
  eq(await page.textContent('#crumbs button[aria-current]'), 'fn:Swish', 'breadcrumb');
  await page.click('#crumbs button[data-graph=""]');
  await page.waitForSelector('[data-node="/1"]');
  eq(trouble.join('; '), '', 'trouble');
  await page.close();
});

test('hovering an edge names its tensor, type and shape', async () => {
  const { page, trouble } = await open(demoUrl);
  const t = await page.evaluate(() => window.trtlens.data.graphs[0].tensors.findIndex((x) => x[0] === 'conv_out'));
  check(t >= 0, 'tensor conv_out in the page data');
  // force: a vertical edge has a zero-width box, which Playwright calls invisible.
  await page.hover(`.edge-hit[data-tensor="${t}"]`, { force: true });
  check(await page.isVisible('#tooltip'), 'tooltip shown');
  eq(await page.textContent('#tooltip'), 'conv_out\nFLOAT [1, 4, 6, 6]', 'tooltip');
  eq(trouble.join('; '), '', 'trouble');
  await page.close();
});

test('zoom and fit change the view', async () => {
  const { page, trouble } = await open(demoUrl);
  const before = await page.getAttribute('#viewport', 'transform');
  await page.click('#controls button[data-act="zoom-in"]');
  const zoomed = await page.getAttribute('#viewport', 'transform');
  check(zoomed !== before, 'zoom in');
  await page.click('#controls button[data-act="fit"]');
  eq(await page.getAttribute('#viewport', 'transform'), before, 'fit restores the fitted view');
  eq(trouble.join('; '), '', 'trouble');
  await page.close();
});

test('a big graph is shown one region at a time', async () => {
  const { page, trouble } = await open(chainUrl);
  check(await page.isVisible('#regionbar'), 'region bar shown');
  eq(await page.locator('select[name="region"] option').count(), 3, 'regions of 600 nodes by 200');
  const drawn = await page.locator('[data-node]').count();
  check(drawn > 0 && drawn <= 200, `nodes drawn: ${drawn}`);
  check(await page.isVisible('[data-node="/0"]'), 'first region first');
  // Search reaches a node of another region and opens it.
  await page.fill('#search', 'act_597');
  await page.press('#search', 'Enter');
  await page.waitForSelector('[data-node="/597"]');
  eq(await page.inputValue('select[name="region"]'), '2', 'region of act_597');
  eq(await page.locator('[data-node="/0"]').count(), 0, 'region 1 no longer drawn');
  // Region links lead back.
  await page.click('#controls button[data-act="fit"]');
  await page.click('.link[data-region="1"] >> nth=0');
  eq(await page.inputValue('select[name="region"]'), '1', 'followed the link');
  await page.screenshot({ path: path.join(artifacts, 'regions.png') });
  eq(trouble.join('; '), '', 'trouble');
  await page.close();
});

test('report --engine: colour by engine layer, precision and time; the drawer names the layer', async () => {
  const { page, trouble } = await open(overlayUrl);
  // The page opens on the engine's runtime (its metadata: TensorRT 8.6.1, FP32+FP16+INT8).
  eq(await page.inputValue('select[name="release"]'), '8.6', 'initial release');
  eq(await page.inputValue('select[name="precision"]'), 'best', 'initial precision');
  check(await page.isVisible('#engine-color-toggle'), 'engine colour toggle shown');
  check((await page.textContent('#engine-summary')).includes('11 of 13 nodes'), 'summary: ' + await page.textContent('#engine-summary'));
  eq(await page.textContent('#disagreement-count'), '3', 'disagreements with check');
  const fill = (id) => page.$eval(`[data-node="${id}"] rect.box`, (r) => getComputedStyle(r).fill);
  const plain = await fill('/0');
  await page.selectOption('select[name="engine-color"]', 'layer');
  // Conv_0 and Relu_1 are one layer: one colour; Conv_3 is another.
  const conv0 = await fill('/0');
  check(conv0 !== plain, `coloured by layer (${plain} -> ${conv0})`);
  eq(await fill('/1'), conv0, 'Relu_1 shares Conv_0\'s layer colour');
  check((await fill('/3')) !== conv0, 'Conv_3 is in another layer');
  eq(await page.getAttribute('[data-node="/6"]', 'data-vanished'), 'not-found', 'Identity_6 vanished');
  eq(await page.getAttribute('[data-node="/2"]', 'data-vanished'), 'constant-folded', 'Constant_2 folded');
  await page.selectOption('select[name="engine-color"]', 'precision');
  eq(await page.getAttribute('[data-node="/0"]', 'data-eprec'), 'INT8', 'Conv_0 ran at INT8');
  check((await fill('/0')) !== (await fill('/9')), 'INT8 and FP16 nodes differ in colour');
  check(await page.isVisible('#engine-legend'), 'precision legend shown');
  await page.selectOption('select[name="engine-color"]', 'time');
  check((await fill('/9')) !== (await fill('/0')), 'the Myelin region (41% of the time) is darker than Conv_0 (17%)');
  await page.screenshot({ path: path.join(artifacts, 'overlay-time.png') });
  await page.click('[data-node="/4"]');
  await page.click('.tabs button[data-tab="engine"]');
  eq(await page.getAttribute('#drawer-body [data-engine-layer]', 'data-engine-layer'), 'Conv_3 + Add_4 + Relu_5', 'layer in the drawer');
  const body = await page.textContent('#drawer-body');
  check(body.includes('INT8') && body.includes('0.0600 ms') && body.includes('Fused with 2 other nodes'), 'engine tab: ' + body);
  eq(await page.getAttribute('#drawer-body .disagreement', 'data-kind'), 'precision-differs', 'the disagreement beside it');
  await page.click('#drawer-body .neighbours button[data-target="/5"]');
  eq(await page.getAttribute('#drawer', 'data-selected'), '/5', 'a fused neighbour opens');
  await page.click('[data-node="/9"]');
  check((await page.textContent('#drawer-body .vanished')).includes('ForeignNode'), 'Softmax inside a Myelin region says so');
  await page.screenshot({ path: path.join(artifacts, 'overlay-drawer.png') });
  await page.click('#disagreements summary');
  await page.click('#disagreement-list button[data-target="/12"]');
  eq(await page.getAttribute('#drawer', 'data-selected'), '/12', 'a disagreement opens its node');
  eq(trouble.join('; '), '', 'trouble');
  await page.close();
});

test('without --engine the engine controls stay hidden', async () => {
  const { page, trouble } = await open(demoUrl);
  check(!(await page.isVisible('#engine-color-toggle')), 'no engine toggle');
  check(!(await page.isVisible('.tabs button[data-tab="engine"]')), 'no engine tab');
  eq(trouble.join('; '), '', 'trouble');
  await page.close();
});

await run(artifacts);
