// End-to-end test of `trtlens serve` in Debian's headless Chromium: a real
// server on 127.0.0.1; a user signs in with a token, uploads a model through
// the page, watches it analysed, opens the report in its frame, switches
// precision, opens a node's drawer, uploads a second version, compares the
// two, attaches an engine, and administers (tag, filter, delete, error pages; the admin page:
// tokens listed and revoked, a project's pins set and the report opening at them; the engine
// page's files and relabelling, untag, rename and deleting a model after a confirmation page).
// Usage: node serve.mjs <trtlens binary> <source dir> <artifact dir>
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

import { HOSTILE, browser, check, eq, run, test } from './harness.mjs';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const [trtlens, source, artifactArg] = process.argv.slice(2);
if (!trtlens || !source) {
  console.error('usage: node serve.mjs <trtlens binary> <source dir> <artifact dir>');
  process.exit(2);
}
const artifacts = path.resolve(artifactArg || path.join(here, 'artifacts'));
const work = path.join(artifacts, 'serve-work');
fs.rmSync(work, { recursive: true, force: true });
fs.mkdirSync(work, { recursive: true });
const python = fs.existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';
execFileSync(python, [path.join(here, 'make_models.py'), work], { stdio: 'inherit' });

const data = path.join(work, 'data');
const admin = (...args) => execFileSync(trtlens, ['admin', '--data', data, ...args]).toString().trim();
const token = admin('user', 'alice', '--admin');
admin('project', 'vision');
admin('grant', 'alice', 'vision', 'write');
const bobToken = admin('user', 'bob');
admin('grant', 'bob', 'vision', 'read');

const portFile = path.join(work, 'port');
const server = spawn(trtlens, ['serve', '--data', data, '--port', '0', '--port-file', portFile],
  { stdio: ['ignore', 'inherit', 'inherit'] });
process.on('exit', () => server.kill('SIGKILL'));
for (let i = 0; i < 300 && !fs.existsSync(portFile); i++) await new Promise((r) => setTimeout(r, 100));
const base = 'http://127.0.0.1:' + fs.readFileSync(portFile, 'utf8').trim();

// One signed-in page for the whole story; it records what must never happen.
const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
const trouble = [];
page.on('request', (r) => { if (!r.url().startsWith(base) && !r.url().startsWith('data:')) trouble.push('request ' + r.url()); });
page.on('pageerror', (e) => trouble.push('page error ' + e.message));
page.on('dialog', async (d) => { trouble.push('dialog ' + d.message()); await d.dismiss(); });

// The served report a link opened at a node (#node=…): its drawer on that node, on Verdict.
async function landedOn(what, name) {
  await page.waitForSelector('body[data-ready="true"]', { timeout: 30000 });
  check(new URL(page.url()).hash.startsWith('#node='), what + ': an anchored link ' + page.url());
  eq(await page.textContent('#drawer-name'), name, what + ': the drawer is on the node');
  eq(await page.getAttribute('.tabs button[data-tab="verdict"]', 'aria-selected'), 'true', what + ': on Verdict');
  check(await page.isVisible('#items .node.selected'), what + ': the node is drawn and highlighted');
  check(!(await page.isVisible('#note')), what + ': no note');
}

// Waits until the version page shows its analysed report frame (the page reloads itself when done).
async function reportFrame() {
  await page.waitForSelector('iframe.report', { timeout: 120000 });
  const frame = page.frameLocator('iframe.report');
  await frame.locator('body[data-ready="true"]').waitFor({ timeout: 30000 });
  return frame;
}

test('sign in with a token; a wrong one is refused', async () => {
  await page.goto(base + '/');
  eq(new URL(page.url()).pathname, '/login', 'signed-out visit goes to sign-in');
  await page.fill('input[name="token"]', 'trt_wrong');
  await page.click('form button');
  check((await page.textContent('body')).includes('Unknown token'), 'wrong token refused');
  await page.goto(base + '/login');
  await page.fill('input[name="token"]', token);
  await page.click('form button');
  eq(new URL(page.url()).pathname, '/', 'signed in');
  check((await page.textContent('header')).includes('alice'), 'user shown');
});

test('upload a model through the page, watch it analysed, read the report', async () => {
  await page.goto(base + '/projects/vision');
  await page.fill('form.upload input[name="model"]', 'demo');
  await page.setInputFiles('form.upload input[name="file"]', path.join(work, 'demo.onnx'));
  await page.click('form.upload button');
  eq(new URL(page.url()).pathname, '/projects/vision/models/demo/versions/1', 'lands on version 1');
  const frame = await reportFrame();
  eq(await frame.locator('[data-node]').count(), 5, 'report nodes drawn in the frame');
  check((await page.textContent('.converts')).includes('fp16'), 'pinned runtimes listed');
  await page.screenshot({ path: path.join(artifacts, 'serve-version.png') });
});

test('switch precision in the served report, open a drawer', async () => {
  const frame = page.frameLocator('iframe.report');
  await frame.locator('select[name="release"]').selectOption('8.6');
  await frame.locator('select[name="precision"]').selectOption('int8');
  eq(await frame.locator('[data-node="/1"]').getAttribute('data-verdict'), 'FALLBACK', 'BatchNormalization at 8.6 INT8');
  await frame.locator('[data-node="/3"]').click();
  await frame.locator('.tabs button[data-tab="runtimes"]').click();
  const reshape86 = await frame.locator('#drawer-body tr[data-release="8.6"]').textContent();
  check(reshape86.includes('FP32, FP16'), 'Supported Runtimes tab: ' + reshape86);
  await page.screenshot({ path: path.join(artifacts, 'serve-drawer.png') });
});

test('upload a second version and compare the two', async () => {
  await page.click('details.push summary');
  await page.fill('details.push input[name="model"]', 'demo');
  await page.setInputFiles('details.push input[name="file"]', path.join(work, 'overlay.onnx'));
  await page.click('details.push form button');
  eq(new URL(page.url()).pathname, '/projects/vision/models/demo/versions/2', 'lands on version 2');
  await reportFrame();
  const rows = await page.locator('details.history tr td a').allTextContents();
  check(rows.includes('v1') && rows.includes('v2'), 'history lists both: ' + rows);
  await page.selectOption('form.compare select[name="against"]', '1');
  await page.selectOption('form.compare select[name="precision"]', 'fp16');
  await page.click('form.compare button');
  const text = await page.textContent('section.diff');
  check(text.includes('version 1 → version 2'), 'diff heading: ' + text.slice(0, 200));
  check(await page.locator('table.diff-added tr').count() > 1, 'added nodes listed');
  check(await page.locator('table.diff-removed tr').count() > 1, 'removed nodes listed');
  // The graph view draws the same nodes: every added one green, every removed one red.
  const listed = async (t) => page.locator(`table.diff-${t} tr:has(td)`).evaluateAll(
    (rows) => rows.map((r) => r.cells[1].textContent + ' (' + r.cells[2].textContent + ')'));
  const drawn = async (kind) => (await page.locator(`section.diff-graph g.dg_${kind} a`).evaluateAll(
    (as) => as.map((a) => a.getAttribute('xlink:title').split('\n')[0]))).sort();
  const added = await listed('added'), removed = await listed('removed');
  eq(JSON.stringify(await drawn('added')), JSON.stringify(added.map((n) => 'added: ' + n).sort()), 'added nodes drawn');
  eq(JSON.stringify(await drawn('removed')), JSON.stringify(removed.map((n) => 'removed: ' + n).sort()),
    'removed nodes drawn');
  const fill = await page.locator('section.diff-graph g.dg_added path, section.diff-graph g.dg_added polygon').first()
    .getAttribute('fill');
  eq(fill, '#d4f5d0', 'added nodes are green');
  check(await page.locator('section.diff-graph svg').isVisible(), 'the graph is shown');
  await page.screenshot({ path: path.join(artifacts, 'serve-diff.png'), fullPage: true });
  // A node opens the report of the version holding it, at that node and the diff's runtime.
  const nameOf = async (a) => (await a.getAttribute('xlink:title')).split('\n')[0].replace(/^\w+: /, '').replace(/ \([^)]*\)$/, '');
  const removedNode = page.locator('section.diff-graph g.dg_removed a').first();
  const removedName = await nameOf(removedNode);
  await removedNode.click();
  check(new URL(page.url()).pathname.endsWith('/versions/1/report'), 'a removed node opens v1: ' + page.url());
  await landedOn('a removed node', removedName);
  eq(await page.inputValue('select[name="precision"]'), 'fp16', "the diff's precision");
  await page.goBack();
  const addedNode = page.locator('section.diff-graph g.dg_added a').first();
  const addedName = await nameOf(addedNode);
  await addedNode.click();
  check(new URL(page.url()).pathname.endsWith('/versions/2/report'), 'an added node opens v2: ' + page.url());
  await landedOn('an added node', addedName);
});

test('attach an engine; its report card and overlay open', async () => {
  await page.goto(base + '/projects/vision/models/demo/versions/2');
  await page.click('details.engines summary');
  await page.fill('details.engines input[name="label"]', 'fp16 A100');
  const fixtures = path.join(source, 'tests', 'fixtures', 'engine', 'overlay');
  await page.setInputFiles('details.engines input[name="files"]',
    fs.readdirSync(fixtures).map((f) => path.join(fixtures, f)));
  await page.click('details.engines form button');
  check((await page.textContent('p.flash')).includes('attached engine 1 (fp16 A100) to demo v2'), 'attaching says so');
  for (let i = 0; i < 120 && !(await page.locator('details.engines a:text("engine report")').count()); i++) {
    await new Promise((r) => setTimeout(r, 500));
    await page.reload();
  }
  await page.click('details.engines a:text("engine report")');
  await page.waitForSelector('body[data-ready="true"]', { timeout: 30000 });
  await page.screenshot({ path: path.join(artifacts, 'serve-engine.png') });
  await page.goBack();
  await page.click('details.engines a:text("model with the engine")');
  await page.waitForSelector('body[data-ready="true"]', { timeout: 30000 });
  check(await page.locator('select[name="engine-color"]').count() === 1, 'engine overlay controls on the model page');
  eq(trouble.join('; '), '', 'trouble');
});

test('engines: the release field is filled from the metadata and shown in the list', async () => {
  await page.goto(base + '/projects/vision/models/demo/versions/2');
  await page.click('details.engines summary');
  const fixtures = path.join(source, 'tests', 'fixtures', 'engine', 'overlay');
  const form = page.locator('details.engines form.upload');
  await form.locator('input[name="files"]').setInputFiles(fs.readdirSync(fixtures).map((f) => path.join(fixtures, f)));
  await page.waitForFunction(() => document.querySelector('details.engines input[name="release"]').value !== '');
  eq(await form.locator('input[name="release"]').inputValue(), '8.6', 'release from the build metadata');
  // The engine attached above went with the field the page filled in.
  check((await page.textContent('details.engines ul')).includes('TensorRT 8.6 (given when the engine was attached)'),
    'the attached engine says its release: ' + (await page.textContent('details.engines ul')));
});

test('engines: picking a plan file fills the release from its header', async () => {
  // Plan headers as TensorRT writes them (src/trt_env/plan.cpp): 'ftrt', a zero word at 4, the
  // version at 24-27; the second behind an exporter's 4-byte length and JSON metadata block.
  const plan = Buffer.alloc(64);
  plan.write('ftrt', 0);
  plan.set([10, 3, 0, 26], 24);
  fs.writeFileSync(path.join(work, 'resnet.plan'), plan);
  const meta = Buffer.from('{"author": "exporter"}');
  const prefixed = Buffer.alloc(64);
  prefixed.write('ptrt', 0);
  prefixed.set([10, 8, 0, 43], 24);
  const length = Buffer.alloc(4);
  length.writeUInt32LE(meta.length);
  fs.writeFileSync(path.join(work, 'exported.engine'), Buffer.concat([length, meta, prefixed]));
  fs.writeFileSync(path.join(work, 'broken.plan'), Buffer.from('these bytes are no TensorRT plan at all, not even close'));

  await page.goto(base + '/projects/vision/models/demo/versions/2');
  await page.evaluate(() => { document.querySelector('details.engines').open = true; });
  const form = page.locator('details.engines form.upload');
  const release = form.locator('input[name="release"]');
  const shownSource = form.locator('.release-source');
  const fixtures = path.join(source, 'tests', 'fixtures', 'engine', 'overlay');
  const pick = async (files, want) => {
    await form.locator('input[name="files"]').setInputFiles(files);
    await page.waitForFunction((w) => document.querySelector('details.engines input[name="release"]').value === w, want);
  };
  // With the build metadata (8.6) beside it, the plan's header wins, as on the server.
  await pick(fs.readdirSync(fixtures).map((f) => path.join(fixtures, f)).concat([path.join(work, 'resnet.plan')]), '10.3');
  eq(await shownSource.textContent(), "from resnet.plan's header (TensorRT 10.3.0.26)", 'where the release came from');
  await pick([path.join(work, 'exported.engine')], '10.8');
  eq(await shownSource.textContent(), "from exported.engine's header (TensorRT 10.8.0.43)", 'behind a metadata block');
  // Bytes that are no plan fill nothing and raise nothing (the trouble list stays empty).
  await pick([path.join(work, 'broken.plan')], '');
  eq(await shownSource.textContent(), '', 'no source for a broken plan');
  // What the user typed is theirs.
  await release.fill('10.0');
  await form.locator('input[name="files"]').setInputFiles([path.join(work, 'resnet.plan')]);
  await page.waitForTimeout(300);
  eq(await release.inputValue(), '10.0', "the user's release is kept");
  eq(trouble.join('; '), '', 'trouble');
});

test('the report links back; pins link to the failing nodes', async () => {
  const frame = await reportFrame();
  eq(await frame.locator('a.trtlens-back').count(), 1, 'a link back to the dashboard in the served report');
  const pin = page.locator('.converts a.pin-link').first();
  await pin.click();
  check(new URL(page.url()).pathname.endsWith('/versions/2/nodes'), 'pin opens the nodes page: ' + page.url());
  check((await page.textContent('h1')).includes('at TensorRT'), 'nodes page heading');
});

test("a pin's failing nodes open the report at each node: a hostile name, an unnamed node, one in an If body", async () => {
  await page.goto(base + '/projects/vision');
  await page.fill('form.upload input[name="model"]', 'anchors');
  await page.setInputFiles('form.upload input[name="file"]', path.join(work, 'anchors.onnx'));
  await page.click('form.upload button');
  await reportFrame();
  const pin = page.locator('.converts a.pin-link').first();
  const release = new URL(await pin.getAttribute('href'), base).searchParams.get('trt');
  await pin.click();
  const nodesPage = page.url();
  eq(await page.locator('table.nodes a.node-link').count(), 3, 'three failing nodes, each a link');
  const rows = [[HOSTILE, HOSTILE], ['(unnamed)', null], ['deep_bad', 'deep_bad']];
  for (const [text, name] of rows) {
    await page.goto(nodesPage);
    await page.locator('table.nodes a.node-link', { hasText: text === HOSTILE ? 'bad "q"' : text }).click();
    check(new URL(page.url()).pathname.endsWith('/models/anchors/versions/1/report'), text + ': the served report');
    await landedOn(text, name === null ? '(unnamed)' : name);
    eq(await page.inputValue('select[name="release"]'), release, text + ": at the pin's release");
  }
  eq(await page.getAttribute('#crumbs button[aria-current]', 'data-graph'), 'gate/then_branch', 'deep_bad: in the If body');
  await page.goto(nodesPage);
  await page.click('a.report-link');
  await page.waitForSelector('body[data-ready="true"]');
  eq(await page.inputValue('select[name="release"]'), release, "the report at the pin's runtime");
  check(!(await page.isVisible('#drawer')), 'no node opened');
  // The version page opens its report alone, whose URL then names the node selected.
  await page.goto(base + '/projects/vision/models/anchors/versions/1');
  await page.click('p.report-open a');
  await page.waitForSelector('body[data-ready="true"]');
  await page.click('[data-node="/3"]');
  check(new URL(page.url()).hash.startsWith('#node=gate&trt='), 'the selected node in the URL: ' + page.url());
  eq(trouble.join('; '), '', 'trouble');
});

test('administration: tag, filter the list, delete a version, error pages', async () => {
  await page.goto(base + '/projects/vision/models/demo/versions/2');
  await page.click('details.admin summary');
  await page.fill('details.admin input[name="tag"]', 'production');
  await page.click('details.admin form[action$="/tag"] button');
  check((await page.textContent('h1')).includes('production'), 'tag shown on the version');
  await page.goto(base + '/?q=production');
  check((await page.textContent('table.models')).includes('demo'), 'filter by tag finds the model');
  await page.goto(base + '/?q=no-such-model');
  check((await page.textContent('main')).includes('No model matches.'), 'filter with no match');
  // Deleting asks first; accepted, the version is gone and its page is an error page with a way back.
  page.removeAllListeners('dialog');
  page.once('dialog', (d) => d.accept());
  await page.goto(base + '/projects/vision/models/demo/versions/1');
  await page.click('details.admin summary');
  await page.click('details.admin form.confirm button');
  eq(new URL(page.url()).pathname, '/projects/vision', 'back on the project after the deletion');
  const gone = await page.goto(base + '/projects/vision/models/demo/versions/1');
  eq(gone.status(), 404, 'deleted version');
  check((await page.textContent('main')).includes('has no version 1'), 'an error page, not JSON');
  eq(await page.locator('main a[href="/"]').count(), 1, 'the error page links back');
  await page.screenshot({ path: path.join(artifacts, 'serve-admin.png') });
});

// The API as a script calls it, with a token.
const apiStatus = async (url, bearer) =>
  (await fetch(base + url, { headers: { Authorization: 'Bearer ' + bearer } })).status;

test('admin page: tokens listed without secrets, one revoked, which then fails', async () => {
  eq(await apiStatus('/api/projects', bobToken), 200, "bob's token works");
  await page.goto(base + '/');
  await page.click('header a.admin-link');
  eq(new URL(page.url()).pathname, '/admin', 'the header links the admin page');
  const users = await page.textContent('table.users');
  check(users.includes('alice') && users.includes('bob') && users.includes('vision write'), 'users and roles: ' + users);
  check((await page.textContent('table.projects')).includes('vision'), 'projects listed');
  const html = await page.content();
  check(!html.includes(token) && !html.includes(bobToken), 'no token on the page');
  const bobRow = page.locator('table.tokens tr[data-token="2"]');
  check((await bobRow.textContent()).includes('…' + bobToken.slice(-4)), "bob's token by its last characters");
  eq(await page.locator('table.tokens tr.active').count(), 2, 'two active tokens');
  page.removeAllListeners('dialog');
  page.once('dialog', (d) => d.accept());
  await bobRow.locator('button').click();
  await page.waitForSelector('table.tokens tr[data-token="2"].revoked');
  eq(new URL(page.url()).pathname, '/admin', 'back on the admin page');
  check((await page.textContent('table.tokens tr[data-token="2"]')).includes('revoked'), 'listed as revoked');
  eq(await apiStatus('/api/projects', bobToken), 401, 'the revoked token gets 401');
  // Nor can it sign a browser in.
  const other = await browser.newPage();
  await other.goto(base + '/login');
  await other.fill('input[name="token"]', bobToken);
  await other.click('form button');
  check((await other.textContent('body')).includes('This token was revoked'), 'the revoked token cannot sign in, and '
    + 'the page says why');
  await other.close();
  await page.screenshot({ path: path.join(artifacts, 'serve-admin-page.png') });
});

test("a project's pins: a bad one is refused; set, the report opens at the new pin", async () => {
  await page.goto(base + '/projects/vision');
  check((await page.textContent('section.pins')).includes("the server's"), 'the server pins at first');
  await page.fill('section.pins input[name="pins"]', '99.1:fp16');
  await page.click('section.pins form button');
  check((await page.textContent('main')).includes("unknown TensorRT release '99.1'"), 'bad pin refused in words');
  await page.goto(base + '/projects/vision');
  await page.fill('section.pins input[name="pins"]', '8.6:int8 10.16:fp16');
  await page.click('section.pins form button');
  eq(new URL(page.url()).pathname, '/projects/vision', 'back on the project');
  const pins = await page.textContent('section.pins');
  check(pins.includes('8.6 int8') && pins.includes("this project's"), 'the project pins shown: ' + pins);
  await page.goto(base + '/projects/vision/models/demo/versions/2');
  const frame = await reportFrame();  // analysed again at the new pins
  eq(await frame.locator('select[name="release"]').inputValue(), '8.6', 'report opens at the first pin release');
  eq(await frame.locator('select[name="precision"]').inputValue(), 'int8', 'report opens at the first pin precision');
  check((await page.textContent('.converts')).includes('8.6 int8'), 'the version badges at the new pins');
  await page.goto(base + '/projects/vision');
  check((await page.textContent('table.models')).includes('10.16 fp16'), 'the model list badges at the new pins');
  await page.screenshot({ path: path.join(artifacts, 'serve-pins.png') });
  eq(trouble.join('; '), '', 'trouble');
});

test('manage: the engine page lists its files and relabels; untag, rename, delete the model after a confirmation; '
  + 'each says what it did', async () => {
  const flash = async () => (await page.textContent('p.flash')) || '';
  await page.goto(base + '/projects/vision/models/demo/versions/2');
  // The version's files, each with its size and a download link.
  const modelFile = page.locator('details.files a.file').first();
  check((await page.textContent('details.files')).includes('overlay.onnx'), 'the version lists its files');
  check((await modelFile.getAttribute('href')).includes('/versions/2/files/'), 'a file links its download');
  // The engine page: what it is, every trtexec file, its administration.
  await page.click('details.engines a:text("fp16 A100")');  // the list is open when it has engines
  check(/\/versions\/2\/engines\/1$/.test(new URL(page.url()).pathname), 'the engine page: ' + page.url());
  const files = await page.locator('details.files a.file').allTextContents();
  check(files.some((f) => f.endsWith('.graph.json')) && files.some((f) => f.endsWith('.profile.json')),
    'the engine lists its trtexec files: ' + files);
  const graphHref = await page.locator('details.files a.file:has-text(".graph.json")').first().getAttribute('href');
  const download = await page.request.get(base + graphHref);
  eq(download.status(), 200, 'the graph.json downloads');
  check((await download.text()).includes('"Layers"') || (await download.text()).startsWith('['), 'its bytes');
  await page.click('details.admin summary');
  await page.fill('details.admin input[name="label"]', 'fp16 A100 rebuilt');
  await page.click('details.admin form[action$="/relabel"] button');
  check((await flash()).includes('relabelled engine 1: fp16 A100 → fp16 A100 rebuilt'), 'relabel says so: ' + await flash());
  check((await page.textContent('h1')).includes('fp16 A100 rebuilt'), 'the new label shown');
  await page.reload();
  eq(await page.locator('p.flash').count(), 0, 'the message is shown once');
  // Untag (the administration test tagged v2 production).
  await page.goto(base + '/projects/vision/models/demo/versions/production');
  check((await page.textContent('h1')).includes('version 2'), 'the tag addresses the version');
  await page.click('details.admin summary');
  await page.click('details.admin form.untag button');
  check((await flash()).includes('removed tag production (it named v2)'), 'untag says so: ' + await flash());
  // Rename.
  await page.click('details.admin summary');
  await page.fill('details.admin input[name="name"]', 'demo2');
  await page.click('details.admin form[action$="/rename"] button');
  eq(new URL(page.url()).pathname, '/projects/vision/models/demo2/versions/2', 'lands on the renamed model');
  check((await flash()).includes('renamed model demo to demo2'), 'rename says so: ' + await flash());
  // Delete the model: a page asks first, naming what goes.
  await page.click('details.admin summary');
  await page.click('details.admin a:text("delete the model")');
  const asked = await page.textContent('main');
  check(asked.includes('cannot be undone') && asked.includes('1 version(s), 1 engine(s)'), 'the confirmation: ' + asked);
  await page.click('main form button');
  eq(new URL(page.url()).pathname, '/projects/vision', 'back on the project');
  check((await flash()).includes('deleted model demo2: 1 version(s), 1 engine(s)'), 'delete says so: ' + await flash());
  eq(await page.locator('table.models a:text("demo2")').count(), 0, 'the model is gone');
  await page.screenshot({ path: path.join(artifacts, 'serve-manage.png'), fullPage: true });
  eq(trouble.join('; '), '', 'trouble');
});

await run(artifacts);
