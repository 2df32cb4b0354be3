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
export async function render(body) {
  const response = await fetch('/api/render', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  if (response.status === 409) return null;
  if (!response.ok) throw await failure(response);
  const bytes = new Uint8ClampedArray(await response.arrayBuffer());
  return {
    bytes,
    width: Number(response.headers.get('X-Tonekit-Width')),
    height: Number(response.headers.get('X-Tonekit-Height')),
    timings: JSON.parse(response.headers.get('X-Tonekit-Timings') || '{}'),
  };
}

export async function upload(file) {
  const response = await fetch(`/api/upload?name=${encodeURIComponent(file.name)}`, { method: 'POST', body: file });
  if (!response.ok) throw await failure(response);
  return response.json();
}
