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
