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

await run(artifacts);
