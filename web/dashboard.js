// trtlens serve: shows an analysis in progress and reloads the page when it ends.
(function () {
  const box = document.getElementById('analysis');
  if (!box) return;
  const bar = box.querySelector('progress');
  const stage = box.querySelector('.stage');
  async function poll() {
    try {
      const res = await fetch(box.dataset.url, { credentials: 'same-origin' });
      const a = await res.json();
      if (a.status === 'done' || a.status === 'failed') { location.reload(); return; }
      bar.value = a.progress_percent;
      stage.textContent = (a.message || a.status) + ' ' + a.progress_percent + '%';
    } catch (e) {
      stage.textContent = 'waiting for the server…';
    }
    setTimeout(poll, 1000);
  }
  setTimeout(poll, 500);
})();

// Deletions ask first.
document.querySelectorAll('form.confirm').forEach((form) => {
  form.addEventListener('submit', (e) => {
    if (!window.confirm(form.querySelector('button').textContent + '?')) e.preventDefault();
  });
});

// Attaching an engine: an empty release field (or one this script filled) takes the release the
// picked files tell, in the server's order (recorded_release in src/serve/uploads.cpp): a plan's
// header in the 10.0+ layout, then the build metadata's "TensorRT version" (trtexec's or
// `trtlens build`'s). An 8.x plan's version is a heuristic the server applies itself, after the
// metadata. What is not a plan, or a release the server does not know, fills nothing.
const le32 = (b, o) => (b[o] | b[o + 1] << 8 | b[o + 2] << 16 | b[o + 3] << 24) >>> 0;
const isTag = (b, o) => o + 4 <= b.length && ['ftrt', 'ptrt'].includes(String.fromCharCode(...b.subarray(o, o + 4)));
// The layout parse_plan reads (src/trt_env/plan.cpp): the tag 'ftrt' or 'ptrt' at offset 0, or
// after a 4-byte little-endian length and a JSON metadata block ('{'); from the tag, a zero
// word at +4 marks the 10.0+ layout, whose version is bytes +24..+27 (major, minor, patch,
// build), as trtexec --getPlanVersionOnly reads them. "10.3.0.26", or null.
async function planVersion(file) {
  let b = new Uint8Array(await file.slice(0, 64).arrayBuffer());
  if (!isTag(b, 0)) {
    const n = b.length >= 5 && b[4] === 0x7b ? le32(b, 0) : 0;
    if (n === 0 || n > (1 << 20)) return null;  // a longer metadata block is left to the server
    b = new Uint8Array(await file.slice(4 + n, 4 + n + 28).arrayBuffer());
    if (!isTag(b, 0)) return null;
  }
  if (b.length < 28 || le32(b, 4) !== 0) return null;
  const v = b.subarray(24, 28);
  if (v[0] === 0 || v[0] > 30) return null;  // no TensorRT release has such a major (plan.cpp says the same)
  return Array.from(v).join('.');
}
document.querySelectorAll('input[name="files"]').forEach((input) => {
  const release = input.form && input.form.querySelector('input[name="release"]');
  if (!release) return;
  const shown = input.form.querySelector('.release-source');
  const known = Array.from(input.form.querySelectorAll('datalist option'), (o) => o.value);
  // "10.3.0.26" -> the known release of that major.minor ("10.3"), or null.
  const releaseOf = (v) => known.find((r) => r === v.split('.').slice(0, 2).join('.')) || null;
  input.addEventListener('change', async () => {
    if (release.value && release.value !== release.dataset.filled) return;  // the user's own
    let best = null;  // {rank, release, from}
    for (const file of input.files) {
      let found = null;
      try {
        if (/\.(plan|engine|trt)$/.test(file.name)) {
          const v = await planVersion(file);
          if (v && releaseOf(v)) found = { rank: 1, release: releaseOf(v), from: file.name + "'s header (TensorRT " + v + ')' };
        } else if (file.name.endsWith('.metadata.json') && file.size <= (1 << 20)) {
          const m = /"TensorRT version"\s*:\s*"(\d+\.\d+)/.exec(await file.text());
          if (m) found = { rank: 2, release: m[1], from: file.name + ' (TensorRT ' + m[1] + ')' };
        }
      } catch (e) {
        found = null;  // an unreadable file fills nothing
      }
      if (found && (!best || found.rank < best.rank)) best = found;
    }
    release.value = best ? best.release : '';
    release.dataset.filled = release.value;
    release.title = best ? 'from ' + best.from : '';
    if (shown) shown.textContent = best ? 'from ' + best.from : '';
  });
});
