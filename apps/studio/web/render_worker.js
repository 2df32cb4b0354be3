// The studio's render requests off the page's main thread (api.js): the fetch, the reply's
// headers as soon as they are in, then its bytes, handed over (transferred, not copied). The main
// thread then only draws, so reading the next frame's bytes never waits for a draw, nor a draw
// for the bytes.
self.onmessage = async ({ data: { id, body } }) => {
  try {
    const response = await fetch('/api/render', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    if (response.status === 409) { self.postMessage({ id, stale: true }); return; }
    if (!response.ok) {
      let message = `${response.status} ${response.statusText}`;
      try { message = (await response.json()).error || message; } catch { /* not JSON */ }
      self.postMessage({ id, error: message, status: response.status });
      return;
    }
    const h = name => response.headers.get(name);
    self.postMessage({ id, headers: { width: Number(h('X-Tonekit-Width')), height: Number(h('X-Tonekit-Height')),
                                      timings: h('X-Tonekit-Timings') || '{}' } });
    const buffer = await response.arrayBuffer();
    self.postMessage({ id, buffer }, [buffer]);
  } catch (e) {
    self.postMessage({ id, error: String((e && e.message) || e) });
  }
};
