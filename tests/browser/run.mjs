// End-to-end tests of `trtlens report` pages in Debian's headless Chromium.
// Usage: node run.mjs <trtlens binary> <artifact dir>
// Generates its models (make_models.py, python3-onnx), writes reports with the
// binary, drives the pages through playwright-core and saves screenshots into
// the artifact dir. Prints "N passed, M failed" and exits 1 on any failure.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

import { EVIL, HOSTILE, check, eq, open, run, test } from './harness.mjs';
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

const problemsUrl = report('problems.onnx', 'problems.html', ['--trt', '8.6', '--precision', 'fp32', '--region-nodes', '25']);
const dlaUrl = report('dla.onnx', 'dla.html', ['--target', 'orin-dla', '--trt', '8.5', '--precision', 'fp16']);
const anchorsUrl = report('anchors.onnx', 'anchors.html', ['--trt', '8.6', '--precision', 'fp32']);

const verdictOf = (page, id) => page.getAttribute(`[data-node="${id}"]`, 'data-verdict');
// The page id ("<graph path>/<index>") and region of the node named `name`.
const nodeNamed = (page, name) => page.evaluate((nm) => {
  for (const gr of window.trtlens.data.graphs) {
    const n = gr.nodes.find((x) => x.n === nm);
    if (n) return { id: gr.path + '/' + n.ix, r: n.r, path: gr.path };
  }
  return null;
}, name);
const LONG_NAME = '/features/features.1/features.1.0/attn/proj/Relu_long_tail';

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
  eq(await page.getAttribute('.tabs button[data-tab="verdict"]', 'aria-selected'), 'true', 'opened on Verdict');
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
  await page.check('#show-folded');  // Constant_2 is drawn inside Reshape_7 until then
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

test('the minimap and the region overview show where the problems are', async () => {
  const { page, trouble } = await open(problemsUrl);
  const regions = await page.evaluate(() => window.trtlens.data.graphs[0].regions.length);
  check(regions >= 3, `regions: ${regions}`);
  eq(await page.locator('#overview button[data-region]').count(), regions, 'one overview cell per region');
  const bad = [];
  for (const name of ['bad_12', 'bad_37', 'bad_52']) bad.push((await nodeNamed(page, name)).r);
  for (let r = 0; r < regions; r++) {
    const worst = await page.getAttribute(`#overview button[data-region="${r}"]`, 'data-worst');
    eq(worst === 'UNSUPPORTED', bad.includes(r), `region ${r + 1} is red exactly when it holds a BadOp (${worst})`);
  }
  const label = await page.textContent(`select[name="region"] option[value="${bad[0]}"]`);
  check(/\d+ nodes · .*1 unsupported.* · .*Relu/.test(label), 'region label: ' + label);
  // The minimap draws the problem node in red.
  const reds = () => page.evaluate(() => {
    const c = document.getElementById('minimap-canvas');
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let j = 0; j < d.length; j += 4) if (d[j] === 0xcf && d[j + 1] === 0x22 && d[j + 2] === 0x2e) n++;
    return n;
  });
  await page.click(`#overview button[data-region="${bad[1]}"]`);
  eq(await page.inputValue('select[name="region"]'), String(bad[1]), 'the overview cell opens its region');
  check((await reds()) > 0, 'red pixels in the minimap');
  const before = await page.getAttribute('#viewport', 'transform');
  const box = await page.locator('#minimap-canvas').boundingBox();
  await page.mouse.click(box.x + box.width / 2, box.y + box.height - 5);
  check((await page.getAttribute('#viewport', 'transform')) !== before, 'a click on the minimap moves the view');
  await page.screenshot({ path: path.join(artifacts, 'minimap.png') });
  eq(trouble.join('; '), '', 'trouble');
  await page.close();
});

test('n and p step through problems, across regions and bodies, and open the drawer on Verdict', async () => {
  const { page, trouble } = await open(problemsUrl);
  await page.selectOption('select[name="problem-kind"]', 'UNSUPPORTED');
  const ids = [];
  for (const name of ['bad_12', 'bad_37', 'bad_52', 'then_bad']) ids.push((await nodeNamed(page, name)).id);
  eq(await page.textContent('#problem-pos'), '4 problems', 'count before a jump');
  await page.keyboard.press('n');
  eq(await page.getAttribute('#drawer', 'data-selected'), ids[0], 'first problem');
  eq(await page.getAttribute('.tabs button[data-tab="verdict"]', 'aria-selected'), 'true', 'drawer on Verdict');
  eq(await page.textContent('#problem-pos'), '1 of 4', 'position');
  check(await page.isVisible(`[data-node="${ids[0]}"]`), 'drawn');
  await page.keyboard.press('n');
  eq(await page.getAttribute('#drawer', 'data-selected'), ids[1], 'second problem');
  eq(await page.inputValue('select[name="region"]'), String((await nodeNamed(page, 'bad_37')).r), 'its region opened');
  await page.keyboard.press('p');
  eq(await page.getAttribute('#drawer', 'data-selected'), ids[0], 'back');
  await page.keyboard.press('p');
  eq(await page.getAttribute('#drawer', 'data-selected'), ids[3], 'wraps to the last: inside the If body');
  eq(await page.locator('#crumbs button').count(), 2, 'the body was entered');
  await page.click('#problems button[data-act="next-problem"]');
  eq(await page.getAttribute('#drawer', 'data-selected'), ids[0], 'the button wraps to the first');
  eq(trouble.join('; '), '', 'trouble');
  await page.close();
});

test('an If whose body holds an unsupported node says so on its badge and in the breadcrumb', async () => {
  const { page, trouble } = await open(problemsUrl);
  const branch = (await nodeNamed(page, 'branch')).id;
  await page.evaluate((id) => window.trtlens.reveal(id), branch);
  eq(await verdictOf(page, branch), 'SUPPORTED', 'the If imports');
  eq(await page.getAttribute(`[data-node="${branch}"]`, 'data-rollup'), 'UNSUPPORTED', 'rolled-up verdict');
  check(await page.isVisible(`[data-node="${branch}"] .rollup`), 'roll-up badge drawn');
  eq(await page.getAttribute('#crumbs button[data-graph=""]', 'data-rollup'), 'UNSUPPORTED', 'main crumb');
  await page.click('.tabs button[data-tab="verdict"]');
  check((await page.textContent('#drawer-body')).includes('Inside its bodies: 1 unsupported'), 'verdict tab: ' + await page.textContent('#drawer-body'));
  await page.hover(`[data-node="${branch}"]`);
  await page.click('#drawer-subs button[data-open="branch/then_branch"]');
  await page.waitForSelector('#crumbs button[data-graph="branch/then_branch"]');
  eq(await page.getAttribute('#crumbs button[data-graph="branch/then_branch"]', 'data-rollup'), 'UNSUPPORTED', 'body crumb');
  check(!(await page.isVisible('#tooltip')), 'the If tooltip left with the If');
  // At a release where the If does not import either, its own badge shows it.
  await page.screenshot({ path: path.join(artifacts, 'rollup.png') });
  eq(trouble.join('; '), '', 'trouble');
  await page.close();
});

test('Constant and Identity-of-constant nodes fold into their reader; the toggle shows them', async () => {
  const { page, trouble } = await open(problemsUrl);
  const shape = await nodeNamed(page, 'shape_5'), reshape = await nodeNamed(page, 'reshape_5');
  const wid = await nodeNamed(page, 'w_identity'), add = await nodeNamed(page, 'add_20');
  await page.evaluate((id) => window.trtlens.reveal(id), reshape.id);
  eq(await page.locator(`[data-node="${shape.id}"]`).count(), 0, 'the Constant is not drawn');
  eq(await page.getAttribute(`[data-node="${reshape.id}"]`, 'data-folded'), '1', 'its reader holds it');
  await page.click('.tabs button[data-tab="io"]');
  const io = await page.textContent('#drawer-body');
  check(io.includes('shape_5_out') && io.includes('[1, 16]') && io.includes('Folded into this node'), 'inputs/outputs: ' + io);
  await page.evaluate((id) => window.trtlens.reveal(id), add.id);
  eq(await page.locator(`[data-node="${wid.id}"]`).count(), 0, 'the Identity of an initializer is not drawn');
  eq(await page.getAttribute(`[data-node="${add.id}"]`, 'data-folded'), '1', 'Add holds it');
  // Search still finds a folded node: its drawer opens, its reader is marked.
  await page.fill('#search', 'shape_5');
  await page.press('#search', 'Enter');
  eq(await page.getAttribute('#drawer', 'data-selected'), shape.id, 'the folded node\'s drawer');
  check((await page.getAttribute(`[data-node="${reshape.id}"]`, 'class')).includes('selected'), 'the reader is marked');
  await page.check('#show-folded');
  await page.waitForSelector(`[data-node="${shape.id}"]`);
  await page.screenshot({ path: path.join(artifacts, 'unfolded.png') });
  await page.uncheck('#show-folded');
  eq(await page.locator(`[data-node="${shape.id}"]`).count(), 0, 'folded again');
  eq(trouble.join('; '), '', 'trouble');
  await page.close();
});

test('names are cut in the middle, keeping their last path segments', async () => {
  const { page, trouble } = await open(problemsUrl);
  const long = await nodeNamed(page, LONG_NAME);
  await page.evaluate((id) => window.trtlens.reveal(id), long.id);
  const shown = await page.textContent(`[data-node="${long.id}"] text.name`);
  check(shown.startsWith('/features/\u2026/') && shown.endsWith('/Relu_long_tail') && shown.length < LONG_NAME.length,
    'drawn name: ' + shown);
  eq(trouble.join('; '), '', 'trouble');
  await page.close();
});

test('search results lie over the drawer, carry their verdict and filter by verdict and op_type', async () => {
  const { page, trouble } = await open(problemsUrl);
  await page.keyboard.press('n');  // the drawer is open
  check(await page.isVisible('#drawer'), 'drawer open');
  await page.fill('#search', 'a');
  await page.waitForSelector('#search-panel:not([hidden])');
  await page.selectOption('select[name="filter-verdict"]', 'UNSUPPORTED');
  await page.fill('#search', '');
  await page.waitForTimeout(300);  // the search runs 120 ms after the last keystroke
  const verdicts = await page.$$eval('#search-results li', (l) => l.map((x) => x.getAttribute('data-verdict')));
  eq(verdicts.join(','), 'UNSUPPORTED,UNSUPPORTED,UNSUPPORTED,UNSUPPORTED', 'every unsupported node, no query needed');
  const li = await page.locator('#search-results li >> nth=0').boundingBox();
  const drawerBox = await page.locator('#drawer').boundingBox();
  check(li.x + li.width > drawerBox.x, 'the results reach over the drawer');
  const onTop = await page.evaluate(([x, y]) => !!document.elementFromPoint(x, y).closest('#search-results'),
    [li.x + li.width - 10, li.y + li.height / 2]);
  check(onTop, 'the results are above the drawer');
  const colour = await page.$eval('#search-results li .dot', (d) => getComputedStyle(d).backgroundColor);
  eq(colour, 'rgb(207, 34, 46)', 'the verdict colour');
  await page.selectOption('select[name="filter-verdict"]', '');
  await page.selectOption('select[name="filter-op"]', 'Reshape');
  const ops = await page.$$eval('#search-results li b', (l) => l.map((x) => x.textContent));
  check(ops.length === 6 && ops.every((o) => o === 'Reshape'), 'op filter: ' + ops.join(','));
  await page.screenshot({ path: path.join(artifacts, 'search.png') });
  await page.click('#search-results li >> nth=1');
  eq(await page.getAttribute('#drawer', 'data-selected'), (await nodeNamed(page, 'reshape_15')).id, 'a result opens its node');
  check(!(await page.isVisible('#search-panel')), 'and the panel makes way for its drawer');
  await page.click('#search');
  check(await page.isVisible('#search-panel'), 'a click in the box brings the results back');
  eq(await page.locator('#search-results li').count(), 6, 'the same results');
  eq(trouble.join('; '), '', 'trouble');
  await page.close();
});

test('the view exports as SVG and PNG', async () => {
  const { page, trouble } = await open(problemsUrl);
  const [svgDl] = await Promise.all([page.waitForEvent('download'), page.click('#controls button[data-act="export-svg"]')]);
  eq(svgDl.suggestedFilename(), 'problems_region1.svg', 'svg name');
  const text = fs.readFileSync(await svgDl.path(), 'utf8');
  check(text.startsWith('<svg') && text.includes('data-node="/0"') && text.includes('<style'), 'svg content: ' + text.slice(0, 200));
  const parsed = await page.evaluate((t) => {
    const doc = new DOMParser().parseFromString(t, 'image/svg+xml');
    return doc.querySelector('parsererror') ? 'parse error' : doc.querySelectorAll('[data-node]').length;
  }, text);
  eq(parsed, await page.locator('#items [data-node]').count(), 'a well-formed SVG with the nodes on screen');
  const [pngDl] = await Promise.all([page.waitForEvent('download'), page.click('#controls button[data-act="export-png"]')]);
  eq(pngDl.suggestedFilename(), 'problems_region1.png', 'png name');
  const png = fs.readFileSync(await pngDl.path());
  eq(png.subarray(0, 8).toString('hex'), '89504e470d0a1a0a', 'PNG signature');
  eq(png.readUInt32BE(16), 2 * (await page.$eval('#canvas', (c) => c.clientWidth)), 'PNG width: twice the view');
  eq(trouble.join('; '), '', 'trouble');
  await page.close();
});

test('the properties panel names the producer, opsets, inputs and outputs', async () => {
  const { page, trouble } = await open(problemsUrl);
  await page.click('#props-button');
  eq(await page.getAttribute('#drawer', 'data-mode'), 'model', 'drawer in model mode');
  const props = await page.textContent('#drawer-body table[data-props="model"]');
  check(props.includes('trtlens-browser-tests') && props.includes('ai.onnx 13') && props.includes('custom.ops 1'), 'properties: ' + props);
  const ins = await page.textContent('#drawer-body table[data-props="inputs"]');
  check(ins.includes('x') && ins.includes('[1, 16]') && !ins.includes('cond'), 'inputs (initializers left out): ' + ins);
  check((await page.textContent('#drawer-body table[data-props="outputs"]')).includes('y'), 'outputs');
  eq(trouble.join('; '), '', 'trouble');
  await page.close();
});

test('every Supported Runtimes cell explains its verdict', async () => {
  const { page, trouble } = await open(demoUrl);
  await page.selectOption('select[name="precision"]', 'int8');
  await page.click('[data-node="/1"]');
  await page.click('.tabs button[data-tab="runtimes"]');
  const cells = await page.$$eval('#drawer-body tr[data-release]', (rows) => rows.map((r) => [r.dataset.release,
    r.children[3].textContent, r.children[4].textContent]));
  check(cells.length >= 30, 'rows: ' + cells.length);
  const empty = cells.filter((c) => !c[2].trim());
  eq(empty.map((c) => c[0]).join(','), '', 'releases with an empty explanation');
  const at86 = cells.find((c) => c[0] === '8.6');
  check(at86[1].includes('FALLBACK') && /INT8|int8/.test(at86[2]), 'BatchNormalization at 8.6 INT8: ' + at86.join(' | '));
  eq(trouble.join('; '), '', 'trouble');
  await page.close();
});

test('region links fit their labels and never overlap', async () => {
  const { page, trouble } = await open(chainUrl);
  await page.selectOption('select[name="region"]', '1');
  const boxes = await page.$$eval('.link', (ls) => ls.map((l) => {
    const r = l.querySelector('rect').getBBox(), t = l.querySelector('text').getBBox();
    const m = l.transform.baseVal.consolidate().matrix;
    return { x: m.e, y: m.f, w: r.width, h: r.height, tw: t.width };
  }));
  check(boxes.length >= 2, 'links: ' + boxes.length);
  boxes.forEach((b, j) => check(b.tw <= b.w, `label ${j} fits its box (${b.tw} > ${b.w})`));
  for (let a = 0; a < boxes.length; a++)
    for (let b = a + 1; b < boxes.length; b++) {
      const A = boxes[a], B = boxes[b];
      check(A.x + A.w <= B.x || B.x + B.w <= A.x || A.y + A.h <= B.y || B.y + B.h <= A.y, `links ${a} and ${b} overlap`);
    }
  eq(trouble.join('; '), '', 'trouble');
  await page.close();
});

test('report --target: a Target select beside Release and Precision, DLA / GPU badges, precisions per target', async () => {
  const { page, trouble } = await open(dlaUrl);
  const small = (await nodeNamed(page, 'conv_small')).id, large = (await nodeNamed(page, 'conv_large')).id;
  eq(await page.inputValue('select[name="target"]'), 'orin-dla', 'opens on the target');
  check(await page.isVisible('select[name="target"]'), 'the Target select is shown');
  eq(await page.inputValue('select[name="release"]'), '8.5', 'initial release');
  eq(await page.getAttribute(`[data-node="${small}"]`, 'data-dla'), 'DLA', 'the 3x3 Conv runs on the DLA');
  eq(await page.textContent(`[data-node="${small}"] .dla text`), 'DLA', 'its badge');
  eq(await page.getAttribute(`[data-node="${large}"]`, 'data-dla'), 'GPU_FALLBACK', 'the 33x33 Conv falls back');
  eq(await page.textContent(`[data-node="${large}"] .dla text`), 'GPU', 'its badge');
  const why = await page.textContent(`[data-node="${large}"] .dla title`);
  check(why.includes('33'), 'the badge says which restriction fails: ' + why);
  check(await page.isVisible(`[data-node="${small}"] .dla`), 'the DLA badge is visible');
  // Releases Orin does not run are greyed out on the target.
  eq(await page.$eval('select[name="release"] option[value="11.1"]', (o) => o.disabled), true, '11.1 disabled on orin-dla');
  // The drawer: the verdict says where the node runs; Supported Runtimes has the target's precisions.
  await page.click(`[data-node="${large}"]`);
  await page.click('.tabs button[data-tab="verdict"]');
  check((await page.textContent('#drawer-body .dla-line')).includes('GPU fallback'), 'verdict tab: GPU fallback');
  await page.click('.tabs button[data-tab="runtimes"]');
  const heads = await page.$$eval('#drawer-body th', (t) => t.map((x) => x.textContent));
  check(heads.includes('On orin-dla'), 'a column for the target: ' + heads.join(' | '));
  const at85 = await page.textContent('#drawer-body tr[data-release="8.5"] td.target-precisions');
  check(at85.includes('FP16') && at85.includes('INT8') && at85.includes('GPU fallback'), 'orin-dla at 8.5: ' + at85);
  eq(await page.textContent('#drawer-body tr[data-release="11.1"] td.target-precisions'), 'does not run', 'orin-dla at 11.1');
  // JetPack 5.0.2 ships 8.4 and data/targets/dla/8.4.tsv describes it; JetPack 4.6.1's 8.2 runs on Xavier only.
  const at84 = await page.textContent('#drawer-body tr[data-release="8.4"] td.target-precisions');
  check(at84.includes('FP16') && at84.includes('GPU fallback'), 'orin-dla at 8.4: ' + at84);
  eq(await page.textContent('#drawer-body tr[data-release="8.2"] td.target-precisions'), 'does not run', 'orin-dla at 8.2');
  await page.screenshot({ path: path.join(artifacts, 'report-target.png') });
  // Target none: the plain verdicts, no DLA badge, every release offered.
  await page.selectOption('select[name="target"]', '');
  eq(await page.getAttribute(`[data-node="${small}"]`, 'data-dla'), null, 'no placement without the target');
  check(!(await page.isVisible(`[data-node="${small}"] .dla`)), 'the DLA badge is hidden');
  eq(await page.$eval('select[name="release"] option[value="11.1"]', (o) => o.disabled), false, '11.1 offered again');
  await page.selectOption('select[name="release"]', '11.1');
  await page.selectOption('select[name="target"]', 'orin-dla');
  // The release the CLI takes on orin-dla without --trt: 10.3, the newest JetPack's (not 11.4, which needs JetPack 7.2.2+).
  eq(await page.inputValue('select[name="release"]'), '10.3', 'on the target: the release check takes without --trt');
  eq(trouble.join('; '), '', 'trouble');
  await page.close();
});

test('#node= opens the node in a later region and inside an If body, drawer on Verdict; the runtime first', async () => {
  const ids = {};
  for (const name of ['bad_52', 'then_bad', 'act_40']) {
    const { page } = await open(problemsUrl);
    ids[name] = await nodeNamed(page, name);
    await page.close();
  }
  check(ids.bad_52.r > 0, 'bad_52 is in a later region: ' + ids.bad_52.r);
  const opened = async (page, id, what) => {
    eq(await page.getAttribute('#drawer', 'data-selected'), id, what + ': drawer');
    eq(await page.getAttribute('.tabs button[data-tab="verdict"]', 'aria-selected'), 'true', what + ': on Verdict');
    check(await page.isVisible(`[data-node="${id}"].selected`), what + ': drawn and highlighted');
    // Centred in the part of the drawing the drawer leaves free.
    const box = await page.locator(`[data-node="${id}"]`).boundingBox(), stage = await page.locator('#canvas').boundingBox();
    const free = stage.width - (await page.locator('#drawer').boundingBox()).width;
    check(Math.abs(box.x + box.width / 2 - stage.x - free / 2) < 40 && Math.abs(box.y + box.height / 2 - stage.y - stage.height / 2) < 40,
      what + ': centred ' + JSON.stringify([box, stage, free]));
  };
  let { page, trouble } = await open(problemsUrl + '#node=bad_52');
  await opened(page, ids.bad_52.id, 'bad_52');
  eq(await page.inputValue('select[name="region"]'), String(ids.bad_52.r), 'its region opened');
  check(!(await page.isVisible('#note')), 'no note');
  eq(trouble.join('; '), '', 'trouble');
  await page.close();
  ({ page, trouble } = await open(problemsUrl + '#node=then_bad&trt=10.3&precision=fp16'));
  await opened(page, ids.then_bad.id, 'then_bad');
  eq(await page.locator('#crumbs button').count(), 2, 'the body was entered');
  eq(await page.getAttribute('#crumbs button[aria-current]', 'data-graph'), 'branch/then_branch', 'the If body');
  eq(await page.inputValue('select[name="release"]'), '10.3', 'the anchor\'s release');
  eq(await page.inputValue('select[name="precision"]'), 'fp16', 'the anchor\'s precision');
  check((await page.textContent('#drawer-body')).includes('TensorRT 10.3, FP16'), 'the Verdict tab at that runtime');
  await page.screenshot({ path: path.join(artifacts, 'anchor-body.png') });
  // A page id ("<graph path>/<index>") works too, and so does a later change of the hash.
  await page.evaluate((id) => { location.hash = '#node=' + encodeURIComponent(id); }, ids.act_40.id);
  await page.waitForFunction((id) => document.querySelector('#drawer').getAttribute('data-selected') === id, ids.act_40.id);
  await opened(page, ids.act_40.id, 'act_40 by its page id, on hashchange');
  eq(await page.locator('#crumbs button').count(), 1, 'back in the main graph');
  eq(trouble.join('; '), '', 'trouble');
  await page.close();
  // A hostile name, percent-encoded: its '&', '#', '%', '+' and quotes are the name's.
  ({ page, trouble } = await open(anchorsUrl + '#node=' + encodeURIComponent(HOSTILE)));
  eq(await page.textContent('#drawer-name'), HOSTILE, 'the hostile name found');
  eq(await page.inputValue('select[name="release"]'), '8.6', 'its "&trt=7.0" is no field');
  eq(await page.locator('#items b, #drawer b, img').count(), 0, 'no markup from the name');
  eq(trouble.join('; '), '', 'trouble');
  await page.close();
});

test('selecting a node writes #node= into the URL without new history entries', async () => {
  const { page, trouble } = await open(problemsUrl);
  const length = await page.evaluate(() => history.length);
  const act1 = await nodeNamed(page, 'act_1');
  await page.click(`[data-node="${act1.id}"]`);
  eq(await page.evaluate(() => location.hash), '#node=act_1&trt=8.6&precision=fp32', 'the anchor of a click');
  await page.keyboard.press('n');
  eq(await page.evaluate(() => location.hash), '#node=bad_12&trt=8.6&precision=fp32', 'the anchor of the next problem');
  await page.selectOption('select[name="precision"]', 'fp16');
  eq(await page.evaluate(() => location.hash), '#node=bad_12&trt=8.6&precision=fp16', 'the anchor follows the runtime');
  await page.keyboard.press('p');  // wraps to the If body
  eq(await page.evaluate(() => location.hash), '#node=then_bad&trt=8.6&precision=fp16', 'a body node');
  eq(await page.evaluate(() => history.length), length, 'no history entry added');
  // The copied URL opens the same node at the same runtime.
  const copied = page.url();
  const other = await open(copied);
  eq(await other.page.getAttribute('#drawer', 'data-selected'), (await nodeNamed(page, 'then_bad')).id, 'the copied URL');
  eq(await other.page.inputValue('select[name="precision"]'), 'fp16', 'at the same precision');
  eq(other.trouble.join('; '), '', 'trouble in the copy');
  await other.page.close();
  await page.click('#drawer-close');
  eq(await page.evaluate(() => location.hash), '', 'closing the drawer clears it');
  // Unnamed and same-named nodes go by their page id.
  const anchors = await open(anchorsUrl);
  await anchors.page.click('[data-node="/2"]');
  eq(await anchors.page.evaluate(() => location.hash), '#node=/2&trt=8.6&precision=fp32', 'an unnamed node');
  await anchors.page.click(`[data-node="/1"]`);
  eq(await anchors.page.evaluate(() => decodeURIComponent(location.hash.slice(6).split('&trt=')[0])), HOSTILE, 'a hostile name, encoded');
  eq(anchors.trouble.join('; '), '', 'trouble in anchors');
  await anchors.page.close();
  eq(trouble.join('; '), '', 'trouble');
  await page.close();
});

test('an unknown #node= name: the page loads and says so in a note, as text', async () => {
  const { page, trouble } = await open(problemsUrl + '#node=' + encodeURIComponent(EVIL) + '&trt=99.9');
  check(await page.isVisible('#note'), 'the note is shown');
  eq(await page.textContent('#note-text'), 'no node named ' + EVIL + '; no TensorRT 99.9', 'the note');
  eq(await page.locator('img').count(), 0, 'img elements');
  check(!(await page.isVisible('#drawer')), 'no drawer');
  eq(await page.inputValue('select[name="release"]'), '8.6', 'the release kept');
  check((await page.locator('[data-node]').count()) > 0, 'the graph is drawn');
  await page.screenshot({ path: path.join(artifacts, 'anchor-note.png') });
  await page.click('#note-close');
  check(!(await page.isVisible('#note')), 'dismissed');
  await page.keyboard.press('n');
  check(await page.isVisible('#drawer'), 'the page works');
  // A stray '%' is no script error.
  await page.evaluate(() => { location.hash = '#node=%E0%A4%A'; });
  await page.waitForSelector('#note:not([hidden])');
  eq(await page.textContent('#note-text'), 'no node named %E0%A4%A', 'kept as written');
  eq(trouble.join('; '), '', 'trouble');
  await page.close();
});

test('a report without --target has no Target select', async () => {
  const { page, trouble } = await open(demoUrl);
  check(!(await page.isVisible('select[name="target"]')), 'the Target select is hidden');
  eq(await page.locator('.dla').count(), 0, 'no DLA badges');
  eq(trouble.join('; '), '', 'trouble');
  await page.close();
});

await run(artifacts);
