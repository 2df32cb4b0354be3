// tonekit studio: the page's state and wiring. Controls come from /api/operators (the registry);
// each view (A, B) renders with at most one request in flight: moves made meanwhile are sent as
// one request when it returns, numbered so the server can drop any that were overtaken.
import * as api from './api.js';
import { buildControls } from './controls.js';
import { drawHistogram } from './histogram.js';
import { Viewer } from './viewer.js';

const $ = id => document.getElementById(id);
const clientId = Math.random().toString(36).slice(2, 10);
const PAN_STEP = 64;

const state = {
  registry: null, images: [], image: null, limits: {},
  views: { a: null, b: null }, edit: 'a',
  zoom: null,  // {x, y}: top-left of the 1:1 viewport in image pixels
  seq: { a: 0, b: 0 }, inflight: { a: false, b: false }, dirty: { a: false, b: false }, inputTime: { a: null, b: null },
  frameTimes: [], idle: { a: Promise.resolve(), b: Promise.resolve() },
  // Sequences: the frame shown, its playback rate, playing or not, and the temporal settings
  // (values from the registry's temporal params; one setting for both views, each view keeps
  // its own adaptation state on the server).
  frame: 0, fps: 24, playing: false, playTimes: [], temporal: { on: false, values: {} },
};
// Read by the browser test (tests/studio/e2e): renders drawn and slider-to-pixels latencies.
// pageLog: the last renders' stages as the page saw them (scripts/studio_browser_bench.py reads it).
const stats = window.studio = { renders: 0, latencies: [], lastLatencyMs: null, errors: [], ready: false,
  framesPlayed: 0, playFps: 0, frame: 0, pageLog: [], renderWorker: api.usesWorker() };

const viewer = new Viewer($('viewer'), $('canvas-a'), $('canvas-b'), $('divider'));

function operator(id) { return state.registry.operators.find(o => o.id === id); }

function defaultView(opId, previous) {
  const op = operator(opId);
  const params = {};
  for (const p of op.params) params[p.name] = p.default;
  for (const p of state.registry.common) params[p.name] = previous?.params[p.name] ?? p.default;
  const glare = previous?.glare ?? Object.fromEntries(state.registry.glare.map(g => [g.name, g.default]));
  const night = previous?.night ?? nightOf(null);
  return { op: opId, params, glare, night };
}

// Night vision per view: the toggle and its values (night_params' defaults under a preset's).
function nightOf(values) {
  const defaults = Object.fromEntries(state.registry.night.map(p => [p.name, p.default]));
  return { on: !!values, values: { ...defaults, ...(values || {}) } };
}

function currentImage() { return state.images.find(i => i.id === state.image); }

function requestBody(v, frame = state.frame) {
  const view = state.views[v];
  const img = currentImage();
  const body = { image: state.image, operator: view.op, params: view.params, glare: view.glare,
    night: view.night.on ? view.night.values : null };
  if (state.zoom) {
    const vp = viewer.viewport();
    Object.assign(body, { full: true, crop: { x: state.zoom.x, y: state.zoom.y, w: vp.w, h: vp.h } });
  } else {
    body.width = viewer.fitWidth(img.width || 1920, img.height || 1080);
  }
  if (img.sequence) {
    Object.assign(body, { frame, fps: state.fps });
    if (state.temporal.on) body.temporal = { on: true, ...state.temporal.values };
  }
  return body;
}

function showError(e) {
  stats.errors.push(String(e.message || e));
  $('status-line').innerHTML = '';
  const span = document.createElement('span');
  span.className = 'error';
  span.textContent = e.message || String(e);
  $('status-line').append(span);
}

const nextPaint = () => new Promise(resolve => requestAnimationFrame(() => resolve()));

// One request in flight per view; moves made meanwhile become one follow-up request. The
// promise resolves when the view is idle again. (Playback asks for its frames itself: playLoop.)
function renderView(v) {
  if (state.image === null) return Promise.resolve();
  if (state.inflight[v]) { state.dirty[v] = true; return state.idle[v]; }
  state.inflight[v] = true;
  state.idle[v] = (async () => {
    try {
      do { state.dirty[v] = false; await renderOnce(v); } while (state.dirty[v]);
    } finally { state.inflight[v] = false; }
  })();
  return state.idle[v];
}

async function renderOnce(v) {
  const inputTime = state.inputTime[v];
  state.inputTime[v] = null;
  try {
    const frame = await fetchView(v);
    if (frame) await draw([[v, frame]], { [v]: inputTime });
  } catch (e) {
    showError(e);
    if (state.playing) setPlaying(false);
  }
}

// View v's render of the frame shown (bytes and timings), or null when the server dropped it as stale.
function fetchView(v) {
  return api.render({ ...requestBody(v), view: `${clientId}/${v}`, seq: ++state.seq[v] });
}

// Puts the fetched frames ([view, frame] pairs) on the canvases and waits for the next paint:
// the pixels are on screen when it resolves. Slider latencies end here.
async function draw(frames, inputTimes = {}) {
  for (const [v, frame] of frames) viewer.show(v, frame);
  const shown = performance.now();
  await nextPaint();
  const t1 = performance.now();
  for (const [v, frame] of frames) {
    stats.renders++;
    const t = frame.timings;
    stats.pageLog.push({ ...t, request: frame.headers - frame.sent, body: frame.body - frame.headers,
                         draw: shown - frame.body, paint: t1 - shown, roundTrip: t1 - frame.sent });
    if (stats.pageLog.length > 40) stats.pageLog.shift();
    const inputTime = inputTimes[v] ?? null;
    if (inputTime !== null) {
      performance.measure('slider-to-pixels', { start: inputTime, end: t1 });
      stats.lastLatencyMs = t1 - inputTime;
      stats.latencies.push(stats.lastLatencyMs);
      stats.lastTimings = { ...t, roundTrip: t1 - frame.sent };
    }
    showTimings(frame, t1 - frame.sent, t1);
    if (v === state.edit) scheduleHistogram();
  }
}

function renderAll() {
  return Promise.all([renderView('a'), viewer.ab ? renderView('b') : null]);
}

// The frame shown: scrubber and number follow; the render is the caller's.
function setFrame(n) {
  const img = currentImage();
  const last = img?.sequence ? img.frames - 1 : 0;
  state.frame = stats.frame = Math.max(0, Math.min(last, Math.round(n) || 0));
  $('frame-slider').value = state.frame;
  $('frame-number').value = state.frame;
  $('frame-count').textContent = `/ ${last}`;
}

function setPlaying(on) {
  state.playing = on;
  $('play').setAttribute('aria-pressed', String(on));
  $('play').textContent = on ? '❚❚ Pause' : '▶ Play';
  if (on) playLoop();
}

// Frames in order, one asked for ahead: frame n+1 is requested as soon as frame n's reply headers
// are in (the server has finished n), so the server renders n+1 while n's bytes arrive and are
// drawn. At most one frame is ahead, nothing is dropped (n's reply was already let through when
// n+1 arrives), and the frame requested last is always the one shown when playing stops (with
// temporal adaptation the server's state is that frame's). The rate shown is measured here, on
// screen.
async function playLoop() {
  state.playTimes = [];
  const img = currentImage();
  if (!img?.sequence) { setPlaying(false); return; }
  const views = () => (viewer.ab ? ['a', 'b'] : ['a']);
  const start = n => Promise.all(views().map(v =>
    api.renderStarted({ ...requestBody(v, n), view: `${clientId}/${v}`, seq: ++state.seq[v] }).then(r => [v, r])))
    .then(replies => ({ n, replies }));
  let next = start((state.frame + 1) % img.frames);
  for (;;) {
    let frames, n, more;
    try {
      const got = await next;
      n = got.n;
      more = state.playing && currentImage() === img;
      if (more) next = start((n + 1) % img.frames);
      // A view the server dropped (a newer request for it) keeps its pixels.
      frames = (await Promise.all(got.replies.map(async ([v, r]) => [v, r && await r.complete()]))).filter(([, f]) => f);
    } catch (e) { showError(e); setPlaying(false); return; }
    setFrame(n);
    await draw(frames);
    state.playTimes.push(performance.now());
    if (state.playTimes.length > 20) state.playTimes.shift();
    const k = state.playTimes.length;
    stats.framesPlayed++;
    if (k > 1) {
      stats.playFps = (k - 1) * 1000 / (state.playTimes[k - 1] - state.playTimes[0]);
      $('play-fps').textContent = stats.playFps.toFixed(1);
    }
    if (!more) return;
  }
}

function showTimings(frame, roundTrip, now) {
  state.frameTimes.push(now);
  if (state.frameTimes.length > 10) state.frameTimes.shift();
  const n = state.frameTimes.length;
  const fps = n > 1 ? (n - 1) * 1000 / (state.frameTimes[n - 1] - state.frameTimes[0]) : 0;
  const t = frame.timings;
  const rows = [
    ['frame', `${frame.width}x${frame.height}${t.cached ? ' (cached render)' : ''}`],
    ['prepare (read/downscale)', t.prepare], ['glare', t.glare], ['night', t.night], ['statistics', t.stats], ['map', t.map],
    ['encode', t.encode], ['server total', t.server],
    ['transfer (round trip − server)', roundTrip - t.server], ['round trip to pixels', roundTrip],
    ['fps (last renders)', fps.toFixed(1)],
  ];
  $('timings').tBodies[0].replaceChildren(...rows.map(([k, v]) => {
    const tr = document.createElement('tr');
    const a = document.createElement('td'), b = document.createElement('td');
    a.textContent = k;
    b.textContent = typeof v === 'number' ? `${v.toFixed(1)} ms` : v;
    tr.append(a, b);
    return tr;
  }));
}

// View v's request at preview size (1:1 zoom asks for the fitted preview instead), with the
// view's id: with temporal adaptation on, the server reads this frame's state for it.
function previewBody(v) {
  const body = { ...requestBody(v), view: `${clientId}/${v}` };
  if (body.full) { delete body.full; delete body.crop; const img = currentImage(); body.width = viewer.fitWidth(img.width, img.height); }
  return body;
}

// Scores and Auto act on the edited view (A unless "edit B" is chosen), so B stays as the
// comparison. Each button is disabled while its request runs: a second click would only queue.
async function qualityAction(button, run) {
  if (state.image === null) return;
  const out = $('quality-result');
  button.disabled = true;
  out.textContent = `${button.textContent.toLowerCase()}…`;
  try { await run(out); } catch (e) { out.textContent = ''; showError(e); } finally { button.disabled = false; }
}

async function showScores(out) {
  const v = state.edit;
  const r = await api.postJSON('/api/quality', previewBody(v));
  const f = x => x.toFixed(4);
  out.textContent = `${v.toUpperCase()}: TMQI Q ${f(r.tmqi.q)}  S ${f(r.tmqi.s)}  N ${f(r.tmqi.n)}  FSITM ${f(r.fsitm.mean)}` +
    `  ΔE00 ${r.colour.delta_e2000_mean.toFixed(2)} (p95 ${r.colour.delta_e2000_p95.toFixed(2)})` +
    `  (${r.width}x${r.height}, ${r.ms.toFixed(0)} ms, ${r.scorer})`;
  stats.lastScores = r;
}

async function applyAuto(out) {
  const v = state.edit;
  const r = await api.postJSON('/api/auto', previewBody(v));
  if (state.views[v].op !== r.operator) return;  // the operator changed meanwhile: the values are not its
  Object.assign(state.views[v].params, r.params);
  buildPanel();
  touched(v);
  out.textContent = `${v.toUpperCase()} auto: ${r.searched.join(', ') || 'nothing to search'}; ` +
    `Q ${r.start.tmqi.toFixed(3)} → ${r.chosen.tmqi.toFixed(3)}, FSITM ${r.start.fsitm.toFixed(3)} → ${r.chosen.fsitm.toFixed(3)}` +
    ` on the ${r.proxy.width}x${r.proxy.height} proxy (${r.evaluations} tries, ${r.ms.toFixed(0)} ms)`;
  stats.lastAuto = r;
}

let histogramTimer = null;
function scheduleHistogram() {
  clearTimeout(histogramTimer);
  histogramTimer = setTimeout(async () => {
    const body = previewBody(state.edit);
    try { drawHistogram($('histogram'), $('histogram-caption'), await api.postJSON('/api/histogram', body)); } catch (e) { showError(e); }
  }, 250);
}

function touched(v) {
  if (state.inputTime[v] === null) {
    state.inputTime[v] = performance.now();
    performance.mark('slider-input');
  }
  renderView(v);
}

function buildPanel() {
  const v = state.edit;
  const view = state.views[v];
  const op = operator(view.op);
  $('operator').value = view.op;
  $('operator-cite').textContent = `${op.title} (${op.citation})${op.local ? ', local' : ''}`;
  $('operator-cite').title = op.description;
  const onParam = (name, value) => { state.views[v].params[name] = value; touched(v); };
  buildControls($('params'), op.params, view.params, onParam, 'p');
  buildControls($('common-params'), state.registry.common, view.params, onParam, 'c');
  buildControls($('glare-params'), state.registry.glare, view.glare, (name, value) => { state.views[v].glare[name] = value; touched(v); }, 'g');
  $('night-on').checked = view.night.on;
  buildControls($('night-params'), state.registry.night, view.night.values,
    (name, value) => { state.views[v].night.values[name] = value; if (state.views[v].night.on) touched(v); }, 'n');
}

function touchedAll() {
  touched('a');
  if (viewer.ab) touched('b');
}

async function loadImages(selectId) {
  state.images = (await api.getJSON('/api/images')).images;
  const list = $('image-list');
  list.replaceChildren(...state.images.map(img => {
    const li = document.createElement('li');
    const b = document.createElement('button');
    b.dataset.image = img.id;
    b.title = `${img.name} ${img.width}x${img.height}${img.sequence ? `, ${img.frames} frames` : ''}`;
    const thumb = document.createElement('img');
    thumb.alt = '';
    thumb.loading = 'lazy';
    thumb.src = `/api/images/${img.id}/thumbnail`;
    const name = document.createElement('span');
    name.textContent = img.sequence ? `${img.name} (${img.frames} frames)` : img.name;
    b.append(thumb, name);
    b.addEventListener('click', () => selectImage(img.id));
    li.append(b);
    return li;
  }));
  if (selectId !== undefined) selectImage(selectId);
}

function selectImage(id) {
  state.image = id;
  if (state.playing) setPlaying(false);
  const img = currentImage();
  $('sequence-box').hidden = !img?.sequence;
  if (img?.sequence) {
    $('frame-slider').max = img.frames - 1;
    $('frame-number').max = img.frames - 1;
    state.fps = img.fps;
    $('seq-fps').value = img.fps;
  }
  setFrame(0);
  state.zoom = null;
  $('viewer').classList.remove('zoomed');
  $('zoom').setAttribute('aria-pressed', 'false');
  viewer.zoomed = false;
  for (const b of document.querySelectorAll('#image-list button')) b.setAttribute('aria-current', String(Number(b.dataset.image) === id));
  renderAll();
}

function setZoom(on, centre) {
  const img = currentImage();
  if (!img) return;
  const vp = viewer.viewport();
  state.zoom = on ? clampZoom(centre ? centre.x - vp.w / 2 : (img.width - vp.w) / 2, centre ? centre.y - vp.h / 2 : (img.height - vp.h) / 2) : null;
  viewer.zoomed = on;
  $('viewer').classList.toggle('zoomed', on);
  $('zoom').setAttribute('aria-pressed', String(on));
  renderAll();
}

function clampZoom(x, y) {
  const img = currentImage(), vp = viewer.viewport();
  return { x: Math.round(Math.max(0, Math.min(x, img.width - vp.w))), y: Math.round(Math.max(0, Math.min(y, img.height - vp.h))) };
}

function pan(dx, dy) {
  if (!state.zoom) return;
  state.zoom = clampZoom(state.zoom.x + dx, state.zoom.y + dy);
  renderAll();
}

let probeBusy = false;
async function probe(e) {
  const hit = viewer.hit(e.clientX, e.clientY);
  const img = currentImage();
  if (!hit || !img || probeBusy) return;
  const x = state.zoom ? state.zoom.x + hit.px : Math.floor(hit.fx * img.width);
  const y = state.zoom ? state.zoom.y + hit.py : Math.floor(hit.fy * img.height);
  probeBusy = true;
  try {
    const p = await api.getJSON(`/api/probe?image=${state.image}&x=${x}&y=${y}`);
    const out = viewer.outputAt(hit.view, hit.px, hit.py);
    const f = v => Number(v).toPrecision(4);
    $('probe').textContent = `(${x}, ${y}) HDR RGB ${p.rgb.map(f).join(' ')}  L ${f(p.luminance)}` +
      (out ? `  → ${hit.view.toUpperCase()} out ${out.join(' ')}` : '');
  } catch (err) { showError(err); } finally { probeBusy = false; }
}

function download(name, text) {
  const a = document.createElement('a');
  a.href = URL.createObjectURL(new Blob([text], { type: 'application/json' }));
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}

function presetOf(v) {
  const view = state.views[v];
  return { operator: view.op, params: view.params, glare: view.glare, night: view.night.on ? view.night.values : null };
}

async function applyPreset(text) {
  const preset = await api.postJSON('/api/preset', text);  // validated by the registry
  const v = state.edit;
  state.views[v] = { op: preset.operator, params: preset.params, glare: preset.glare, night: nightOf(preset.night) };
  buildPanel();
  touched(v);
}

async function refreshStatus() {
  try {
    const s = await api.getJSON('/api/status');
    state.limits = s;
    const mem = s.gpu_memory ? `${(s.gpu_memory.used / 2 ** 20).toFixed(0)} / ${(s.gpu_memory.total / 2 ** 20).toFixed(0)} MiB` : 'n/a';
    $('status-line').textContent = `backend ${s.backend} · GPU memory ${mem} · uploads up to ${(s.max_upload_bytes / 2 ** 20).toFixed(0)} MiB`;
  } catch (e) { showError(e); }
}

function wire() {
  const ops = $('operator');
  ops.replaceChildren(...state.registry.operators.map(o => new Option(`${o.id} — ${o.title}`, o.id)));
  ops.addEventListener('change', () => {
    state.views[state.edit] = defaultView(ops.value, state.views[state.edit]);
    buildPanel();
    touched(state.edit);
  });
  $('ab-enable').addEventListener('change', e => {
    viewer.ab = e.target.checked;
    viewer.layout();
    if (viewer.ab) renderView('b');
  });
  $('ab-toggle-mode').addEventListener('change', e => { viewer.toggle = e.target.checked; viewer.layout(); });
  for (const r of document.querySelectorAll('input[name=edit-view]'))
    r.addEventListener('change', () => { state.edit = r.value; buildPanel(); scheduleHistogram(); });
  $('zoom').addEventListener('click', () => setZoom(!state.zoom));
  $('scores').addEventListener('click', () => qualityAction($('scores'), showScores));
  $('auto').addEventListener('click', () => qualityAction($('auto'), applyAuto));
  $('preset-save').addEventListener('click', () => download(`${state.views[state.edit].op}-preset.json`, JSON.stringify(presetOf(state.edit), null, 2)));
  $('preset-load').addEventListener('change', async e => {
    const file = e.target.files[0];
    if (file) try { await applyPreset(await file.text()); } catch (err) { showError(err); }
    e.target.value = '';
  });
  $('export').addEventListener('click', async () => {
    $('export-result').textContent = 'exporting…';
    try {
      const body = { ...presetOf(state.edit), image: state.image, frame: currentImage()?.sequence ? state.frame : 0, name: $('export-name').value, format: $('export-format').value };
      const r = await api.postJSON('/api/export', body);
      const link = document.createElement('a');
      link.href = `/api/exports/${r.file}`;
      link.textContent = r.file;
      link.dataset.testid = 'export-link';
      const side = document.createElement('a');
      side.href = `/api/exports/${r.sidecar}`;
      side.textContent = r.sidecar;
      $('export-result').replaceChildren('wrote ', link, ' and ', side, ` in ${r.folder} (${r.render_ms.toFixed(0)} ms)`);
      stats.lastExport = r;
    } catch (err) { $('export-result').textContent = ''; showError(err); }
  });

  // Sequences: scrubbing is a seek (the server resets the adaptation); play is a button, so
  // Tab and Enter/Space reach it, and key P toggles it.
  $('frame-slider').addEventListener('input', e => { setFrame(Number(e.target.value)); touchedAll(); });
  $('frame-number').addEventListener('change', e => { setFrame(Number(e.target.value)); touchedAll(); });
  $('play').addEventListener('click', () => setPlaying(!state.playing));
  $('seq-fps').addEventListener('change', e => {
    const v = Number(e.target.value);
    if (!Number.isFinite(v) || v <= 0 || v > 1000) { e.target.classList.add('error'); return; }
    e.target.classList.remove('error');
    state.fps = v;
    const img = currentImage();
    if (img) img.fps = v;
  });
  $('temporal-on').addEventListener('change', e => { state.temporal.on = e.target.checked; touchedAll(); });
  $('night-on').addEventListener('change', e => { state.views[state.edit].night.on = e.target.checked; touched(state.edit); });
  state.temporal.values = Object.fromEntries(state.registry.temporal.map(p => [p.name, p.default]));
  buildControls($('temporal-params'), state.registry.temporal, state.temporal.values,
    (name, value) => { state.temporal.values[name] = value; if (state.temporal.on) touchedAll(); }, 't');

  const view = $('viewer');
  let drag = null;
  view.addEventListener('pointerdown', e => { if (state.zoom && e.target.tagName === 'CANVAS') drag = { x: e.clientX, y: e.clientY }; });
  window.addEventListener('pointerup', () => { drag = null; });
  view.addEventListener('pointermove', e => {
    if (drag) { pan(drag.x - e.clientX, drag.y - e.clientY); drag = { x: e.clientX, y: e.clientY }; return; }
    probe(e);
  });
  view.addEventListener('dblclick', e => {
    const hit = viewer.hit(e.clientX, e.clientY), img = currentImage();
    if (hit && !state.zoom) setZoom(true, { x: hit.fx * img.width, y: hit.fy * img.height });
    else setZoom(false);
  });
  view.addEventListener('keydown', e => {
    const d = { ArrowLeft: [-PAN_STEP, 0], ArrowRight: [PAN_STEP, 0], ArrowUp: [0, -PAN_STEP], ArrowDown: [0, PAN_STEP] }[e.key];
    if (d && state.zoom) { pan(...d); e.preventDefault(); }
  });
  document.addEventListener('keydown', e => {
    if (e.target.matches('input, select, textarea')) return;
    if (e.key === 'z' || e.key === 'Z') setZoom(!state.zoom);
    else if ((e.key === 'p' || e.key === 'P') && currentImage()?.sequence) setPlaying(!state.playing);
    else if ((e.key === 't' || e.key === 'T') && viewer.ab) { viewer.showingB = !viewer.showingB; viewer.layout(); }
  });
  let resizeTimer = null;
  window.addEventListener('resize', () => { viewer.layout(); clearTimeout(resizeTimer); resizeTimer = setTimeout(renderAll, 150); });

  // Dropped files: the server decodes them with the CLI's readers; the size limit is its own.
  document.addEventListener('dragover', e => { e.preventDefault(); $('drop-overlay').hidden = false; });
  document.addEventListener('dragleave', e => { if (!e.relatedTarget) $('drop-overlay').hidden = true; });
  document.addEventListener('drop', async e => {
    e.preventDefault();
    $('drop-overlay').hidden = true;
    const file = e.dataTransfer.files[0];
    if (!file) return;
    if (state.limits.max_upload_bytes && file.size > state.limits.max_upload_bytes) {
      showError(new Error(`${file.name}: ${(file.size / 2 ** 20).toFixed(0)} MiB is over the upload limit`));
      return;
    }
    try { const r = await api.upload(file); await loadImages(r.id); } catch (err) { showError(err); }
  });
}

async function main() {
  state.registry = await api.getJSON('/api/operators');
  await refreshStatus();
  setInterval(refreshStatus, 3000);
  const first = state.registry.operators.find(o => o.id === 'reinhard') ?? state.registry.operators[0];
  state.views.a = defaultView(first.id);
  state.views.b = defaultView(state.registry.operators.find(o => o.id === 'drago')?.id ?? first.id);
  wire();
  buildPanel();
  await loadImages();
  if (state.images.length) selectImage(state.images[0].id);
  stats.ready = true;
}

main().catch(showError);
