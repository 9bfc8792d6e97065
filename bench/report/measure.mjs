// Time-to-interactive of a report page in headless Chromium, and the time of
// the interactions that touch every node (runtime switch, search).
// Usage: node measure.mjs page.html [runs]
// Needs playwright-core: `npm install` in tests/browser (setup.sh does it).
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, '../../tests/browser/package.json'));
const { chromium } = require('playwright-core');
const [page_path, runsArg] = process.argv.slice(2);
const runs = +(runsArg || 5);

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
    '--disable-sync', '--no-first-run', '--disable-quic'],
});
const rows = [];
for (let i = 0; i < runs; i++) {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const t0 = Date.now();
  await page.goto('file://' + path.resolve(page_path));
  await page.waitForSelector('body[data-ready="true"]', { timeout: 60000 });
  const wall = Date.now() - t0;
  const m = await page.evaluate(async () => {
    const ready = performance.getEntriesByName('trtlens-ready')[0].startTime;
    // A switch until the next frame is painted: handlers, style and layout of the drawing.
    const painted = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
    const change = async (name, index) => {
      const s = document.querySelector('select[name="' + name + '"]');
      const t0 = performance.now();
      s.selectedIndex = index;
      s.dispatchEvent(new Event('change'));
      await painted();
      return performance.now() - t0;
    };
    const rel = document.querySelector('select[name="release"]');
    const releaseMs = await change('release', rel.selectedIndex > 0 ? rel.selectedIndex - 1 : 1);
    const sel = document.querySelector('select[name="precision"]');
    let t = performance.now();
    sel.value = 'int8';
    sel.dispatchEvent(new Event('change'));
    const switchMs = performance.now() - t;
    t = performance.now();
    if (window.trtlens.nextProblem) window.trtlens.nextProblem();  // pages before issue 22 have none
    await painted();
    const nextMs = performance.now() - t;
    const search = document.getElementById('search');
    t = performance.now();
    search.value = 'MatMul_9';
    search.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter' }));
    const searchMs = performance.now() - t;
    return { ready, releaseMs, switchMs, nextMs, searchMs, drawn: document.querySelectorAll('[data-node]').length };
  });
  rows.push({ wall, ...m });
  await page.close();
}
await browser.close();
const med = (k) => rows.map((r) => r[k]).sort((a, b) => a - b)[Math.floor(rows.length / 2)];
console.log(`runs: ${runs}, nodes drawn: ${rows[0].drawn}`);
console.log(`time to interactive (navigation start -> page ready), median: ${med('ready').toFixed(0)} ms`);
console.log(`goto -> ready as the driver sees it, median: ${med('wall').toFixed(0)} ms`);
console.log(`release switch until painted, median: ${med('releaseMs').toFixed(1)} ms`);
console.log(`precision switch (re-colour + summary), median: ${med('switchMs').toFixed(1)} ms`);
console.log(`next problem (n) until painted, median: ${med('nextMs').toFixed(1)} ms`);
console.log(`search + reveal, median: ${med('searchMs').toFixed(1)} ms`);
