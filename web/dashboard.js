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

// Attaching an engine: the release its build metadata records (trtexec's or `trtlens build`'s
// "TensorRT version") fills an empty release field; the server falls back the same way.
document.querySelectorAll('input[name="files"]').forEach((input) => {
  const release = input.form && input.form.querySelector('input[name="release"]');
  if (!release) return;
  input.addEventListener('change', async () => {
    for (const file of input.files) {
      if (!file.name.endsWith('.metadata.json') || file.size > (1 << 20)) continue;
      const found = /"TensorRT version"\s*:\s*"(\d+\.\d+)/.exec(await file.text());
      if (found && !release.value) {
        release.value = found[1];
        release.title = 'from ' + file.name;
      }
    }
  });
});
