// Runs the parts `trtlens partition -o` writes in ONNX Runtime (CPU, from npm) and
// compares the chain's outputs with the whole model's: bit-exact, fp16 to one ulp.
// Every part also passes onnx.checker's full check (Debian's python3-onnx).
// Usage: node run.mjs <trtlens binary> <model cache dir> <work dir>
// Exits 77 (skipped) with a message when onnxruntime-node is not installed.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const [trtlens, cache, workArg] = process.argv.slice(2);
if (!trtlens || !cache) {
  console.error('usage: node run.mjs <trtlens binary> <model cache dir> <work dir>');
  process.exit(2);
}
let ort;
try {
  ort = createRequire(path.join(here, 'package.json'))('onnxruntime-node');
} catch (e) {
  console.log(`SKIP: onnxruntime-node is not installed in ${here} (./setup.sh runs npm install --ignore-scripts there): ${e.message.split('\n')[0]}`);
  process.exit(77);
}
const python = fs.existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';
const work = path.resolve(workArg || path.join(here, 'work'));
fs.rmSync(work, { recursive: true, force: true });
fs.mkdirSync(work, { recursive: true });
execFileSync(python, [path.join(here, 'make_models.py'), path.join(work, 'built')], { stdio: 'inherit' });

const testdata = '/usr/share/libonnx-testdata/data/node';
// [model, release, precision, run in ONNX Runtime?, --target]. Real models: small ones whose
// partition cuts (the provider's default exclusions, unsupported ops at old releases). A DLA
// target cuts TensorRT regions further into DLA loadables and GPU regions.
const cases = [
  [path.join(work, 'built/constants.onnx'), '8.6', 'fp32', true],
  [path.join(work, 'built/nonzero.onnx'), '8.6', 'fp32', true],
  [path.join(work, 'built/fp16.onnx'), '8.6', 'fp16', true],
  [path.join(work, 'built/if_cast.onnx'), '8.6', 'fp32', true],
  [path.join(testdata, 'test_sce_mean_expanded/model.onnx'), '8.6', 'fp32', true],
  // A sequence input: onnxruntime-node feeds tensors only, so this one is checked, not run.
  [path.join(testdata, 'test_sequence_map_identity_1_sequence_expanded/model.onnx'), '7.0', 'fp32', false],
  [path.join(cache, 'ssdlite320_op17.onnx'), '8.6', 'fp32', true],
  [path.join(cache, 'mobilenet_v3_small_op11.onnx'), '7.0', 'fp32', true],
  // 49 parts whose boundaries need the rank walk; written, checked and converted, not run (a
  // minute of CPU on the shared machine; its chain was run bit-exact when the walk was written).
  [path.join(cache, 'swin_t_op17.onnx'), '8.6', 'fp16', false],
  // The model is fp32; fp16 is the builder's precision that puts nodes on the DLA, so the chain is fp32, bit-exact.
  [path.join(work, 'built/dla_branch.onnx'), '8.5', 'fp16', true, 'orin-dla'],
  [path.join(cache, 'resnet18_op17.onnx'), '8.5', 'fp16', true, 'orin-dla'],
];

const typed = {
  FLOAT: Float32Array, DOUBLE: Float64Array, INT64: BigInt64Array, INT32: Int32Array, INT8: Int8Array,
  UINT8: Uint8Array, BOOL: Uint8Array, FLOAT16: Uint16Array, INT16: Int16Array, UINT16: Uint16Array,
};
const ortType = { FLOAT: 'float32', DOUBLE: 'float64', INT64: 'int64', INT32: 'int32', INT8: 'int8', UINT8: 'uint8',
  BOOL: 'bool', FLOAT16: 'float16', INT16: 'int16', UINT16: 'uint16' };

// Deterministic inputs: floats in [0, 1), integers in [0, 3), symbolic or unknown dims 1.
function makeInput(t, seed) {
  const dims = (t.shape || []).map((d) => (typeof d === 'number' ? d : 1));
  const n = dims.reduce((a, b) => a * b, 1);
  const Arr = typed[t.type];
  if (!Arr) throw new Error(`input ${t.name}: type ${t.type} not generated`);
  const data = new Arr(n);
  let s = seed >>> 0;
  const next = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
  for (let i = 0; i < n; ++i) {
    const u = next();
    if (t.type === 'FLOAT' || t.type === 'DOUBLE') data[i] = u;
    else if (t.type === 'FLOAT16') data[i] = 0x3c00 - Math.floor(u * 0x400);  // (0.5, 1] in fp16
    else if (t.type === 'INT64') data[i] = BigInt(Math.floor(u * 3));
    else if (t.type === 'BOOL') data[i] = u < 0.5 ? 1 : 0;
    else data[i] = Math.floor(u * 3);
  }
  return new ort.Tensor(ortType[t.type], data, dims);
}

// Equal bit for bit; fp16: within one ulp (adjacent bit patterns of the same sign).
function compare(name, whole, part, fp16) {
  if (JSON.stringify(whole.dims) !== JSON.stringify(part.dims))
    return `${name}: shape ${JSON.stringify(part.dims)} in the chain, ${JSON.stringify(whole.dims)} whole`;
  if (whole.type === 'string') return JSON.stringify(whole.data) === JSON.stringify(part.data) ? null : `${name}: strings differ`;
  const a = new Uint8Array(whole.data.buffer, whole.data.byteOffset, whole.data.byteLength);
  const b = new Uint8Array(part.data.buffer, part.data.byteOffset, part.data.byteLength);
  if (a.length !== b.length) return `${name}: ${b.length} bytes in the chain, ${a.length} whole`;
  if (whole.type === 'float16' && fp16) {
    const x = new Uint16Array(whole.data.buffer, whole.data.byteOffset, whole.data.length);
    const y = new Uint16Array(part.data.buffer, part.data.byteOffset, part.data.length);
    for (let i = 0; i < x.length; ++i)
      if (x[i] !== y[i] && ((x[i] ^ y[i]) & 0x8000 || Math.abs(x[i] - y[i]) > 1))
        return `${name}[${i}]: fp16 bits ${y[i].toString(16)} in the chain, ${x[i].toString(16)} whole (more than one ulp)`;
    return null;
  }
  for (let i = 0; i < a.length; ++i) if (a[i] !== b[i]) return `${name}: byte ${i} differs`;
  return null;
}

// Bit-exact needs the same kernels in the whole model and the parts: no graph
// rewrites (fusions change rounding) and one thread (reductions keep their order).
const options = { graphOptimizationLevel: 'disabled', intraOpNumThreads: 1, interOpNumThreads: 1 };

let passed = 0, failed = 0, skipped = 0;
const dirs = [];
for (const [model, release, precision, runIt, target] of cases) {
  const label = `${path.basename(path.dirname(model)) === 'built' || path.dirname(model) === cache ? path.basename(model) : path.basename(path.dirname(model))} at ${release} ${precision}${target ? ` on ${target}` : ''}`;
  const targetArgs = target ? ['--target', target] : [];
  if (!fs.existsSync(model)) {
    console.log(`skip  ${label}: ${model} is missing`);
    ++skipped;
    continue;
  }
  const dir = path.join(work, `parts${dirs.length}`);
  dirs.push(dir);
  try {
    try {
      execFileSync(trtlens, ['partition', model, '--trt', release, '--precision', precision, ...targetArgs, '-o', dir, '--format', 'json'],
        { stdio: ['ignore', 'ignore', 'pipe'] });
    } catch (e) {
      if (e.status !== 1) throw new Error(`partition exited ${e.status}: ${e.stderr}`);
    }
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
    const trtParts = manifest.parts.filter((p) => p.runtime === 'tensorrt').length;
    // A DLA cut: each TensorRT part is a DLA loadable or a GPU region, and its file says which;
    // `check` at the same target puts every node of a loadable on the DLA and none of a GPU region.
    if (target) {
      for (const part of manifest.parts) {
        const want = { dla: '_dla.onnx', gpu: '_gpu.onnx', onnxruntime: '_rest.onnx' }[part.device];
        if (!want || !part.file.endsWith(want)) throw new Error(`${part.file}: device ${part.device}`);
        if (part.device === 'onnxruntime') continue;
        let doc;
        try {
          doc = JSON.parse(execFileSync(trtlens, ['check', path.join(dir, part.file), '--trt', release, '--precision', precision,
            ...targetArgs, '--format', 'json'], { stdio: ['ignore', 'pipe', 'pipe'] }));
        } catch (e) {
          throw new Error(`check --target ${target} refuses ${part.file} (exit ${e.status})`);
        }
        const off = part.device === 'dla' ? doc.dla.gpu_fallback_nodes + doc.dla.unsupported_nodes : doc.dla.dla_nodes;
        if (off) throw new Error(`${part.file}: ${off} node(s) of this ${part.device} part are placed on the other device by check`);
      }
    }
    // Every TensorRT part converts by `check` at the same runtime (constants stay constants).
    for (const part of manifest.parts.filter((p) => p.runtime === 'tensorrt')) {
      try {
        execFileSync(trtlens, ['check', path.join(dir, part.file), '--trt', release, '--precision', precision, ...targetArgs],
          { stdio: ['ignore', 'pipe', 'pipe'] });
      } catch (e) {
        throw new Error(`check refuses ${part.file} (exit ${e.status}): ${String(e.stdout).split('\n').filter((l) => l.includes('UNSUPPORTED')).slice(0, 2).join(' | ')}`);
      }
    }
    if (!runIt) {
      console.log(`ok    ${label}: ${manifest.parts.length} parts (${trtParts} TensorRT) written; not run`);
      ++passed;
      continue;
    }
    const feeds = {};
    manifest.graph_inputs.forEach((t, k) => { feeds[t.name] = makeInput(t, 17 + k); });
    const whole = await (await ort.InferenceSession.create(model, options)).run(feeds);
    const values = { ...feeds };
    for (const part of manifest.parts) {
      const session = await ort.InferenceSession.create(path.join(dir, part.file), options);
      const inputs = {};
      for (const i of part.inputs) inputs[i.name] = values[i.name];
      const outs = await session.run(inputs);
      for (const o of part.outputs) values[o.name] = outs[o.name];
    }
    const problems = manifest.graph_outputs
      .map((o) => (values[o.name] ? compare(o.name, whole[o.name], values[o.name], precision === 'fp16' || whole[o.name].type === 'float16')
        : `${o.name}: no part produced it`))
      .filter(Boolean);
    if (problems.length) throw new Error(problems.join('; '));
    const dla = manifest.dla ? `, ${manifest.dla.loadables} DLA loadable(s), ${manifest.dla.gpu_regions} GPU region(s)` : '';
    console.log(`ok    ${label}: ${manifest.parts.length} parts (${trtParts} TensorRT${dla}) chain to the whole model's outputs`);
    ++passed;
  } catch (e) {
    console.log(`FAIL  ${label}: ${e.message}`);
    ++failed;
  }
}
// The full checker on every part written, in one python run.
const checker = `
import glob, sys, onnx
bad = 0
for d in sys.argv[1:]:
    for f in sorted(glob.glob(d + "/part*.onnx")):
        try:
            onnx.checker.check_model(f, full_check=True)
        except Exception as e:
            bad += 1
            print("FAIL  onnx.checker " + f + ": " + str(e).splitlines()[0])
print("onnx.checker: %d part(s) refused" % bad)
sys.exit(1 if bad else 0)
`;
try {
  execFileSync(python, ['-c', checker, ...dirs.filter((d) => fs.existsSync(d))], { stdio: 'inherit' });
} catch {
  ++failed;
}
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed ? 1 : 0);
