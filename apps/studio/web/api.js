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
// null: a newer one for the same view is on its way. `sent`, `headers`, `body`: when the request
// went out, its headers and its last byte came in (performance.now()), for the page's timings.
export async function render(body) {
  const reply = await renderStarted(body);
  return reply && reply.complete();
}

// The same render, resolved as soon as the reply's headers are in (the server has finished the
// frame; its bytes are still on their way): `complete()` resolves to what render() gives.
// Playback asks for the next frame at this point, so the server renders it while these bytes
// stream. The requests run in a worker (render_worker.js) where the page can start one (the
// page's ?worker=0 keeps them on the main thread, for comparison).
let worker = null;
if (new URLSearchParams(location.search).get('worker') !== '0') {
  try { worker = new Worker(new URL('./render_worker.js', import.meta.url)); } catch { worker = null; }
}
const pending = new Map();
let nextId = 0;
export const usesWorker = () => worker !== null;
if (worker) {
  worker.onmessage = ({ data }) => {
    const p = pending.get(data.id);
    if (!p) return;
    if (data.headers) {
      p.onHeaders(data.headers);
      return;
    }
    pending.delete(data.id);
    if (data.stale) p.onStale();
    else if (data.error !== undefined) p.onError(Object.assign(new Error(data.error), { status: data.status }));
    else p.onBody(data.buffer);
  };
}

export function renderStarted(body) {
  if (!worker) return renderStartedHere(body);
  const id = ++nextId;
  const sent = performance.now();
  return new Promise((resolve, reject) => {
    let resolveBody, rejectBody, headersIn = false;
    const bytes = new Promise((rs, rj) => { resolveBody = rs; rejectBody = rj; });
    bytes.catch(() => {});  // a failure after the headers is reported by complete()
    pending.set(id, {
      onHeaders: h => {
        headersIn = true;
        const headers = performance.now();
        let frame = null;
        resolve({
          complete: async () => {
            if (!frame) {
              const buffer = await bytes;
              frame = { bytes: new Uint8ClampedArray(buffer), width: h.width, height: h.height,
                        timings: JSON.parse(h.timings), sent, headers, body: performance.now() };
            }
            return frame;
          },
        });
      },
      onBody: buffer => resolveBody(buffer),
      onStale: () => resolve(null),
      onError: e => (headersIn ? rejectBody(e) : reject(e)),
    });
    worker.postMessage({ id, body });
  });
}

// The same on the main thread (no worker).
async function renderStartedHere(body) {
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
