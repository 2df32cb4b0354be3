// End-to-end test of `tonekit studio` in a real browser: Debian's chromium driven by
// playwright-core (no browser download). Usage: node studio_e2e.mjs TONEKIT OUT_DIR
// Steps (a screenshot of each under OUT_DIR/screenshots): open the studio on a synthetic 4K image,
// move a slider (pixels must change; also with the render requests on the page's main thread,
// ?worker=0, not in the default worker), switch operator (pixels must change), A/B with the
// divider dragged (A and B must differ), export a PNG and compare it byte for byte with
// `tonekit map --preset SIDECAR`, show the scores and apply Auto, then measure slider -> new
// pixels for a 1920-wide preview.
// Then a second studio on an image sequence (shot.%04d.exr): the scrubber changes the image,
// play for ~1 s advances frames with the measured fps shown, temporal controls from the registry.
import { spawn, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

let chromium;
try {
  ({ chromium } = await import('playwright-core'));
} catch {
  console.error('playwright-core is not installed: run `make deps` (npm ci in tests/studio/e2e)');
  process.exit(1);
}

const [tonekit, outArg] = process.argv.slice(2);
if (!tonekit || !outArg) { console.error('usage: node studio_e2e.mjs TONEKIT OUT_DIR'); process.exit(2); }
const out = path.resolve(outArg);
rmSync(out, { recursive: true, force: true });
const shots = path.join(out, 'screenshots'), images = path.join(out, 'images'), exports = path.join(out, 'exports');
for (const d of [shots, images, exports]) mkdirSync(d, { recursive: true });

let failures = 0, passes = 0;
function check(ok, what) {
  if (ok) { passes++; console.log(`ok   ${what}`); } else { failures++; console.log(`FAIL ${what}`); }
}

const scene = path.join(images, 'night.exr');
execFileSync(tonekit, ['synth', 'night-drive', scene, '--size', '3840x2160']);

// Starts `tonekit studio PATH` and resolves to the URL it prints.
function startStudio(servedPath) {
  const server = spawn(tonekit, ['studio', servedPath, '--backend', 'cpu', '--export-dir', exports], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = new Promise((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => reject(new Error(`no URL from tonekit studio: ${text}`)), 30000);
    server.stdout.on('data', chunk => {
      text += chunk;
      const m = text.match(/http:\/\/127\.0\.0\.1:\d+\//);
      if (m) { clearTimeout(timer); resolve(m[0]); }
    });
    server.on('exit', code => reject(new Error(`tonekit studio exited with ${code}`)));
  });
  return { server, url };
}
const { server, url: urlPromise } = startStudio(images);
const url = await urlPromise;
console.log(`studio at ${url}`);
let seqServer = null;

const profile = mkdtempSync(path.join(tmpdir(), 'tonekit-e2e-profile-'));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: '/usr/bin/chromium',
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
         '--disable-component-update', '--disable-sync'],
  viewport: { width: 1280, height: 800 },
  deviceScaleFactor: 1,
});

try {
  const page = context.pages()[0] ?? await context.newPage();
  page.on('pageerror', e => { failures++; console.log(`FAIL page error: ${e.message}`); });
  const renders = () => page.evaluate(() => window.studio.renders);
  const waitRenders = n => page.waitForFunction(n => window.studio.renders >= n, n, { timeout: 60000 });
  // Fraction of pixels of canvas `id` that differ from the last snapshot of it.
  const snapshot = id => page.evaluate(id => {
    const c = document.getElementById(id);
    window.__snap = window.__snap || {};
    window.__snap[id] = c.getContext('2d').getImageData(0, 0, c.width, c.height).data.slice();
  }, id);
  const changed = id => page.evaluate(id => {
    const c = document.getElementById(id);
    const now = c.getContext('2d').getImageData(0, 0, c.width, c.height).data, before = window.__snap[id];
    if (now.length !== before.length) return 1;
    let n = 0;
    for (let i = 0; i < now.length; i += 4) if (now[i] !== before[i] || now[i + 1] !== before[i + 1] || now[i + 2] !== before[i + 2]) n++;
    return n / (now.length / 4);
  }, id);

  await page.goto(url);
  await page.waitForFunction(() => window.studio && window.studio.ready && window.studio.renders >= 1, null, { timeout: 60000 });
  await page.screenshot({ path: path.join(shots, '01-open.png') });
  check(await page.locator('#image-list button').count() === 1, 'the image strip lists the synthetic image');
  check(await page.locator('#params input[type=range]').count() >= 2, 'sliders generated from the registry');
  check(await page.evaluate(() => window.studio.renderWorker) === true, 'render requests run in a worker');

  // 1. A slider (keyboard, as a user would): the image must change.
  await snapshot('canvas-a');
  let n = await renders();
  await page.focus('#p-key');
  await page.keyboard.press('End');
  await waitRenders(n + 1);
  const sliderDiff = await changed('canvas-a');
  check(sliderDiff > 0.05, `moving 'key' changed ${(sliderDiff * 100).toFixed(1)} % of the pixels`);
  await page.screenshot({ path: path.join(shots, '02-slider.png') });

  // 1b. The page's fallback with the render requests on its main thread (?worker=0; the default
  // runs them in a worker): a slider move must change the image there too.
  {
    const mp = await context.newPage();
    mp.on('pageerror', e => { failures++; console.log(`FAIL page error (worker=0): ${e.message}`); });
    await mp.goto(url + '?worker=0');
    await mp.waitForFunction(() => window.studio && window.studio.ready && window.studio.renders >= 1, null, { timeout: 60000 });
    check(await mp.evaluate(() => window.studio.renderWorker) === false, '?worker=0 keeps the requests on the main thread');
    const pixels = () => mp.evaluate(() => {
      const c = document.getElementById('canvas-a');
      return Array.from(c.getContext('2d').getImageData(0, 0, c.width, c.height).data.filter((_, i) => i % 97 === 0));
    });
    const before = await pixels();
    const k = await mp.evaluate(() => window.studio.renders);
    await mp.focus('#p-key');
    await mp.keyboard.press('End');
    await mp.waitForFunction(k => window.studio.renders > k, k, { timeout: 60000 });
    const after = await pixels();
    const moved = before.filter((v, i) => v !== after[i]).length / before.length;
    check(moved > 0.02 && (await mp.evaluate(() => window.studio.errors.length)) === 0,
          `requests on the main thread (?worker=0): moving 'key' changed ${(moved * 100).toFixed(1)} % of the sampled bytes`);
    await mp.close();
  }

  // 2. Another operator.
  await snapshot('canvas-a');
  n = await renders();
  await page.selectOption('#operator', 'histeq');
  await waitRenders(n + 1);
  const opDiff = await changed('canvas-a');
  check(opDiff > 0.05, `switching to histeq changed ${(opDiff * 100).toFixed(1)} % of the pixels`);
  check(await page.locator('#p-bins').count() === 1, "histeq's own parameter 'bins' has a slider");
  await page.screenshot({ path: path.join(shots, '03-operator.png') });

  // 3. A/B: B (drago) beside A (histeq), divider dragged to 30 %.
  n = await renders();
  await page.check('#ab-enable');
  await waitRenders(n + 1);
  const abDiff = await page.evaluate(() => {
    const a = document.getElementById('canvas-a'), b = document.getElementById('canvas-b');
    if (a.width !== b.width || a.height !== b.height) return -1;
    const da = a.getContext('2d').getImageData(0, 0, a.width, a.height).data, db = b.getContext('2d').getImageData(0, 0, b.width, b.height).data;
    let d = 0;
    for (let i = 0; i < da.length; i += 4) if (da[i] !== db[i]) d++;
    return d / (da.length / 4);
  });
  check(abDiff > 0.05, `A (histeq) and B (drago) differ in ${(abDiff * 100).toFixed(1)} % of the pixels`);
  const canvasBox = await page.locator('#canvas-a').boundingBox();
  const divBox = await page.locator('#divider').boundingBox();
  await page.mouse.move(divBox.x + divBox.width / 2, divBox.y + divBox.height / 2);
  await page.mouse.down();
  await page.mouse.move(canvasBox.x + canvasBox.width * 0.3, divBox.y + divBox.height / 2, { steps: 5 });
  await page.mouse.up();
  const split = Number(await page.getAttribute('#divider', 'aria-valuenow'));
  check(Math.abs(split - 30) <= 2, `divider dragged to ${split} %`);
  await page.screenshot({ path: path.join(shots, '04-ab.png') });
  await page.uncheck('#ab-enable');

  // 1:1 zoom (key Z) shows full-resolution pixels, one per CSS pixel; arrows pan.
  n = await renders();
  await page.focus('#viewer');
  await page.keyboard.press('z');
  await waitRenders(n + 1);
  const zoom = await page.evaluate(() => {
    const c = document.getElementById('canvas-a'), v = document.getElementById('viewer');
    return { w: c.width, h: c.height, cssW: c.getBoundingClientRect().width, vw: v.clientWidth };
  });
  check(zoom.w === zoom.vw && Math.abs(zoom.cssW - zoom.w) < 1, `1:1 zoom: ${zoom.w}x${zoom.h} image pixels in ${zoom.cssW} CSS px`);
  await snapshot('canvas-a');
  n = await renders();
  await page.keyboard.press('ArrowRight');
  await waitRenders(n + 1);
  check(await changed('canvas-a') > 0.05, 'panning at 1:1 shows other pixels');
  await page.mouse.move(canvasBox.x + 200, canvasBox.y + 200);
  await page.waitForFunction(() => /HDR RGB/.test(document.getElementById('probe').textContent), null, { timeout: 30000 });
  check(true, `pixel probe: ${await page.textContent('#probe')}`);
  await page.screenshot({ path: path.join(shots, '04b-zoom-probe.png') });
  n = await renders();
  await page.keyboard.press('z');
  await waitRenders(n + 1);

  // A preset loaded from a file sets the operator and its values (validated by the server).
  const presetFile = path.join(out, 'loaded-preset.json');
  writeFileSync(presetFile, JSON.stringify({ operator: 'drago', params: { bias: 0.7 } }));
  n = await renders();
  await page.setInputFiles('#preset-load', presetFile);
  await waitRenders(n + 1);
  check(await page.inputValue('#operator') === 'drago' && Number(await page.inputValue('#params .param:first-child input[type=number]')) === 0.7,
        'preset loaded: drago with bias 0.7');

  // 4. Export A and compare with the CLI run on the sidecar preset.
  await page.fill('#export-name', 'e2e');
  await page.selectOption('#export-format', 'png');
  await page.click('#export');
  await page.waitForFunction(() => window.studio.lastExport, null, { timeout: 120000 });
  await page.screenshot({ path: path.join(shots, '05-export.png') });
  const cliOut = path.join(out, 'cli.png');
  execFileSync(tonekit, ['map', scene, cliOut, '--preset', path.join(exports, 'e2e.json'), '--backend', 'cpu']);
  const exported = readFileSync(path.join(exports, 'e2e.png')), cli = readFileSync(cliOut);
  check(exported.length > 1000 && exported.equals(cli),
        `exported PNG (${exported.length} bytes) equals tonekit map --preset (${cli.length} bytes) byte for byte`);

  // 4b. Scores (keyboard: Tab-reachable button, Enter) for the current view, then Auto, which
  // must move at least one of A's sliders and re-render.
  await page.focus('#scores');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => window.studio.lastScores && /TMQI Q/.test(document.getElementById('quality-result').textContent),
                             null, { timeout: 120000 });
  const sc = await page.evaluate(() => window.studio.lastScores);
  const inUnit = [sc.tmqi.q, sc.tmqi.s, sc.tmqi.n, sc.fsitm.mean].every(v => Number.isFinite(v) && v >= 0 && v <= 1);
  check(inUnit, `scores shown: ${await page.textContent('#quality-result')}`);
  await page.screenshot({ path: path.join(shots, '05b-scores.png') });
  const sliderValues = () => page.$$eval('#params input[type=number]', els => els.map(e => e.value).join(' '));
  const beforeAuto = await sliderValues();
  n = await renders();
  await page.focus('#auto');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => window.studio.lastAuto, null, { timeout: 120000 });
  await waitRenders(n + 1);
  const afterAuto = await sliderValues();
  check(afterAuto !== beforeAuto, `Auto set A's sliders: [${beforeAuto}] -> [${afterAuto}] (${await page.textContent('#quality-result')})`);
  await page.screenshot({ path: path.join(shots, '05c-auto.png') });

  // 5. Latency: a 1920-wide preview of the 4K image (the viewer is 1920x1170 CSS px here).
  await page.setViewportSize({ width: 2400, height: 1210 });
  n = await renders();
  await page.selectOption('#operator', 'reinhard');
  await waitRenders(n + 1);
  await page.waitForFunction(() => document.getElementById('canvas-a').width === 1920, null, { timeout: 60000 });
  await page.focus('#p-key');
  const latencies = [], stages = [];
  for (let i = 0; i < 12; i++) {
    n = await renders();
    const before = await page.evaluate(() => window.studio.latencies.length);
    await page.keyboard.press(i % 2 ? 'ArrowLeft' : 'ArrowRight');
    await page.waitForFunction(b => window.studio.latencies.length > b, before, { timeout: 60000 });
    latencies.push(await page.evaluate(() => window.studio.lastLatencyMs));
    stages.push(await page.evaluate(() => window.studio.lastTimings));
  }
  await page.screenshot({ path: path.join(shots, '06-latency.png') });
  const sorted = [...latencies].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)];
  console.log(`latency slider->pixels, 1920x1080 preview of 3840x2160, cpu backend, reinhard: ` +
              `median ${median.toFixed(1)} ms, min ${sorted[0].toFixed(1)} ms, max ${sorted.at(-1).toFixed(1)} ms (n=${sorted.length})`);
  const med = key => { const v = stages.map(t => t[key]).sort((a, b) => a - b); return v[Math.floor(v.length / 2)].toFixed(1); };
  console.log(`  medians: server ${med('server')} ms (statistics ${med('stats')}, map ${med('map')}, encode ${med('encode')}), ` +
              `request to pixels ${med('roundTrip')} ms`);
  check(latencies.length === 12 && latencies.every(Number.isFinite), 'latency measured for every slider step');
  const errors = await page.evaluate(() => window.studio.errors);
  check(errors.length === 0, `no errors shown on the page${errors.length ? ': ' + errors.join('; ') : ''}`);

  // 6. An image sequence: one item with its frame count, a scrubber, play with measured fps.
  const seqDir = path.join(out, 'sequence');
  mkdirSync(seqDir, { recursive: true });
  execFileSync(tonekit, ['synth', 'night-drive', path.join(seqDir, 'f.%04d.exr'), '--frames', '12', '--size', '480x270']);
  const seq = startStudio(path.join(seqDir, 'f.%04d.exr'));
  seqServer = seq.server;
  const seqUrl = await seq.url;
  const sp = await context.newPage();
  sp.on('pageerror', e => { failures++; console.log(`FAIL page error (sequence): ${e.message}`); });
  await sp.setViewportSize({ width: 1280, height: 800 });
  await sp.goto(seqUrl);
  await sp.waitForFunction(() => window.studio && window.studio.ready && window.studio.renders >= 1, null, { timeout: 60000 });
  const seqRenders = () => sp.evaluate(() => window.studio.renders);
  const waitSeq = k => sp.waitForFunction(k => window.studio.renders >= k, k, { timeout: 60000 });
  const grab = () => sp.evaluate(() => {
    const c = document.getElementById('canvas-a');
    return Array.from(c.getContext('2d').getImageData(0, 0, c.width, c.height).data);
  });
  const diff = (a, b) => {
    if (a.length !== b.length) return 1;
    let d = 0;
    for (let i = 0; i < a.length; i += 4) if (a[i] !== b[i] || a[i + 1] !== b[i + 1] || a[i + 2] !== b[i + 2]) d++;
    return d / (a.length / 4);
  };
  check(await sp.locator('#image-list button').count() === 1 && /12 frames/.test(await sp.textContent('#image-list')),
        'the sequence is one item with its 12 frames');
  check(await sp.isVisible('#sequence-box'), 'sequence controls shown');
  const temporalSliders = await sp.locator('#temporal-params input[type=range]').count();
  const temporalRegistry = await sp.evaluate(async () => (await (await fetch('/api/operators')).json()).temporal.length);
  check(temporalSliders === temporalRegistry && temporalSliders > 0, `${temporalSliders} temporal sliders from the registry`);
  const frame0 = await grab();
  let k = await seqRenders();
  await sp.focus('#frame-slider');
  await sp.keyboard.press('End');
  await waitSeq(k + 1);
  const lastFrame = await sp.evaluate(() => window.studio.frame);
  const scrubDiff = diff(frame0, await grab());
  check(lastFrame === 11 && scrubDiff > 0.01, `scrubber to frame ${lastFrame} changed ${(scrubDiff * 100).toFixed(1)} % of the pixels`);
  await sp.screenshot({ path: path.join(shots, '07-sequence-scrub.png') });
  k = await seqRenders();
  await sp.keyboard.press('Home');
  await waitSeq(k + 1);
  await sp.click('#sequence-box summary');  // the temporal settings are folded away at first
  await sp.check('#temporal-on');
  // Play from the keyboard for about a second, then pause.
  const playedBefore = await sp.evaluate(() => window.studio.framesPlayed);
  await sp.focus('#play');
  await sp.keyboard.press('Enter');
  await sp.waitForTimeout(1000);
  await sp.screenshot({ path: path.join(shots, '08-sequence-playing.png') });
  await sp.keyboard.press('Enter');
  const played = await sp.evaluate(() => ({ n: window.studio.framesPlayed, fps: window.studio.playFps, frame: window.studio.frame }));
  const shownFps = Number(await sp.textContent('#play-fps'));
  check(played.n - playedBefore >= 3, `play advanced ${played.n - playedBefore} frames in ~1 s (now at frame ${played.frame})`);
  check(shownFps > 0 && played.fps > 0, `measured fps shown while playing: ${shownFps}`);
  console.log(`sequence playback, 480x270 frames, cpu backend, temporal on: ${played.fps.toFixed(1)} fps`);
  check(await sp.getAttribute('#play', 'aria-pressed') === 'false', 'paused again');
  const seqErrors = await sp.evaluate(() => window.studio.errors);
  check(seqErrors.length === 0, `no errors on the sequence page${seqErrors.length ? ': ' + seqErrors.join('; ') : ''}`);
} catch (e) {
  failures++;
  console.log(`FAIL ${e.stack || e}`);
} finally {
  await context.close();
  server.kill('SIGTERM');
  if (seqServer) seqServer.kill('SIGTERM');
  rmSync(profile, { recursive: true, force: true });
}
console.log(`${passes} passed, ${failures} failed`);
process.exit(failures ? 1 : 0);
