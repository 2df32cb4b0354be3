// The studio's HTTP API (apps/studio/server.hpp lists it). Errors come back as {"error": message}.

async function failure(response) {
  let message = `${response.status} ${response.statusText}`;
  try { message = (await response.json()).error || message; } catch { /* not JSON */ }
  const error = new Error(message);
  error.status = response.status;
  return error;
}

export async function getJSON(url) {
  const response = await fetch(url);
  if (!response.ok) throw await failure(response);
  return response.json();
}

export async function postJSON(url, body) {
  const response = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) });
  if (!response.ok) throw await failure(response);
  return response.json();
}

// One render: raw RGBA8 bytes and the server's stage timings. A stale request (409) resolves to
// null: a newer one for the same view is on its way.
// One render: raw RGBA8 bytes and the server's stage timings. A stale request (409) resolves to
// null: a newer one for the same view is on its way. `sent`, `headers`, `body`: when the request
// went out, its headers and its last byte came in (performance.now()), for the page's timings.
export async function render(body) {
  const reply = await renderStarted(body);
  return reply && reply.complete();
}

// The same render, resolved as soon as the reply's headers are in (the server has finished the
// frame; its bytes are still on their way): `complete()` resolves to what render() gives.
// Playback asks for the next frame at this point, so the server renders it while these bytes
// stream.
export async function renderStarted(body) {
  const sent = performance.now();
  const response = await fetch('/api/render', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  if (response.status === 409) return null;
  if (!response.ok) throw await failure(response);
  const headers = performance.now();
  let frame = null;
  return {
    complete: async () => {
      if (!frame) {
        const bytes = new Uint8ClampedArray(await response.arrayBuffer());
        frame = {
          bytes,
          width: Number(response.headers.get('X-Tonekit-Width')),
          height: Number(response.headers.get('X-Tonekit-Height')),
          timings: JSON.parse(response.headers.get('X-Tonekit-Timings') || '{}'),
          sent, headers, body: performance.now(),
        };
      }
      return frame;
    },
  };
}

export async function upload(file) {
  const response = await fetch(`/api/upload?name=${encodeURIComponent(file.name)}`, { method: 'POST', body: file });
  if (!response.ok) throw await failure(response);
  return response.json();
}
