// What the browser tests share: Debian's headless Chromium through playwright-core,
// a page opener that records what must never happen, assertions and a runner.
let chromium;
try {
  ({ chromium } = await import('playwright-core'));
} catch (e) {
  console.error('browser tests: playwright-core is missing; run `npm install` in tests/browser (setup.sh does)');
  console.log('0 passed, 1 failed');
  process.exit(1);
}

export const EVIL = '<img src=x onerror=alert(1)>';
// make_models.py's HOSTILE (anchors.onnx): a node name with every character a URL or HTML gives a meaning to.
export const HOSTILE = 'bad "q" \'s\' &trt=7.0#node=act %41 +/<b>x</b>?\u00e9';

// No sandbox (tests run as root); no background traffic (the machine has no network).
export const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
    '--disable-sync', '--no-first-run', '--disable-quic'],
});

// Opens a page and records what must never happen: a request leaving the
// file, a script error, a dialog (an injected alert()).
export async function open(url) {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const trouble = [];
  page.on('request', (r) => {
    const u = r.url();
    if (!u.startsWith('file:') && !u.startsWith('data:')) trouble.push('request ' + u);
  });
  page.on('pageerror', (e) => trouble.push('page error ' + e.message));
  page.on('dialog', async (d) => { trouble.push('dialog ' + d.message()); await d.dismiss(); });
  await page.goto(url);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 20000 });
  return { page, trouble };
}

export function check(cond, message) {
  if (!cond) throw new Error(message);
}
export function eq(actual, expected, what) {
  if (actual !== expected) throw new Error(`${what}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
}

const tests = [];
export const test = (name, fn) => tests.push({ name, fn });

// Runs every test in order, prints "N passed, M failed" and exits 1 on any failure.
export async function run(artifacts) {
  let passed = 0, failed = 0;
  for (const t of tests) {
    try {
      await t.fn();
      passed++;
      console.log(`ok - ${t.name}`);
    } catch (e) {
      failed++;
      console.log(`not ok - ${t.name}\n    ${String(e && e.message || e).split('\n').join('\n    ')}`);
    }
  }
  await browser.close();
  console.log(`screenshots: ${artifacts}`);
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
}
