#!/usr/bin/env python3
"""The studio's goals (issue 16 item 5) measured in a real browser, on any machine with chromium:
slider -> new pixels for a 1920-wide preview of a 4K image, and playing a 1080p sequence, per backend.

The page measures itself (apps/studio/web/app.js: `performance.measure('slider-to-pixels')` from the
first slider `input` event to the frame after the RGBA bytes are drawn; `playFps` over the last 20
frames played, each asked for once the previous one is on screen). This script only drives it, as
the browser test does (tests/studio/e2e/studio_e2e.mjs), but with nothing beyond Python's standard
library: chromium's DevTools protocol over `--remote-debugging-pipe`, so it runs on a GPU host that
has neither node nor playwright. Usage:

  python3 scripts/studio_browser_bench.py TONEKIT [--chromium PATH] [--backends cuda,cpu]
      [--steps 12] [--play-s 4] [--frames 48] [--ops reinhard,reinhard-sat] [--out DIR]

A carried browser: --chromium (or $CHROMIUM) names it, $CHROMIUM_LIBRARY_PATH its libraries (set for
the browser only). Prints one line per measurement and a table; screenshots (PNG) go to --out when given."""
import argparse, base64, fcntl, json, os, re, shutil, statistics, subprocess, sys, tempfile, threading, time

VIEWPORT = (2400, 1210)  # the viewer is 1920 CSS px wide at scale 1, as in the browser test


class Browser:
    """Chromium with the DevTools protocol on fds 3 (commands in) and 4 (replies out), NUL-separated."""

    def __init__(self, exe, profile):
        to_child_r, self.to_child = os.pipe()
        self.from_child, from_child_w = os.pipe()
        # Above 3 and 4 so the dup2s in the child cannot clobber one another.
        hi_r = fcntl.fcntl(to_child_r, fcntl.F_DUPFD_CLOEXEC, 100)
        hi_w = fcntl.fcntl(from_child_w, fcntl.F_DUPFD_CLOEXEC, 100)
        os.close(to_child_r)
        os.close(from_child_w)

        def child_fds():
            os.dup2(hi_r, 3)
            os.dup2(hi_w, 4)

        args = [exe, '--headless', '--remote-debugging-pipe', '--no-sandbox', '--disable-gpu', '--disable-quic',
                '--no-first-run', '--no-default-browser-check', '--disable-background-networking',
                '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage',
                f'--window-size={VIEWPORT[0]},{VIEWPORT[1]}', f'--user-data-dir={profile}', 'about:blank']
        self.log = open(os.path.join(profile, 'chromium.log'), 'wb')
        env = dict(os.environ)
        if 'CHROMIUM_LIBRARY_PATH' in env:  # a carried browser's libraries, for it alone
            env['LD_LIBRARY_PATH'] = env['CHROMIUM_LIBRARY_PATH']
        self.proc = subprocess.Popen(args, preexec_fn=child_fds, close_fds=False, stdin=subprocess.DEVNULL,
                                     stdout=self.log, stderr=subprocess.STDOUT, env=env)
        os.close(hi_r)
        os.close(hi_w)
        self.next_id = 0
        self.replies, self.cv = {}, threading.Condition()
        self.page_errors = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        buf = b''
        while True:
            chunk = os.read(self.from_child, 1 << 20)
            if not chunk:
                with self.cv:
                    self.replies['closed'] = True
                    self.cv.notify_all()
                return
            buf += chunk
            *msgs, buf = buf.split(b'\0')
            for m in msgs:
                msg = json.loads(m)
                if 'id' in msg:
                    with self.cv:
                        self.replies[msg['id']] = msg
                        self.cv.notify_all()
                elif msg.get('method') == 'Runtime.exceptionThrown':
                    self.page_errors.append(msg['params']['exceptionDetails'].get('text', '?'))

    def send(self, method, params=None, session=None, timeout=60):
        with self.cv:
            self.next_id += 1
            mid = self.next_id
        msg = {'id': mid, 'method': method, 'params': params or {}}
        if session:
            msg['sessionId'] = session
        os.write(self.to_child, json.dumps(msg).encode() + b'\0')
        deadline = time.time() + timeout
        with self.cv:
            while mid not in self.replies:
                if 'closed' in self.replies:
                    raise RuntimeError(f'chromium exited (see {self.log.name})')
                left = deadline - time.time()
                if left <= 0:
                    raise TimeoutError(f'{method}: no reply in {timeout} s')
                self.cv.wait(left)
            reply = self.replies.pop(mid)
        if 'error' in reply:
            raise RuntimeError(f"{method}: {reply['error']}")
        return reply.get('result', {})

    def close(self):
        try:
            self.send('Browser.close', timeout=10)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


class Page:
    def __init__(self, browser):
        self.b = browser
        target = browser.send('Target.createTarget', {'url': 'about:blank'})['targetId']
        self.s = browser.send('Target.attachToTarget', {'targetId': target, 'flatten': True})['sessionId']
        self.send('Runtime.enable')
        self.send('Page.enable')
        self.send('Emulation.setDeviceMetricsOverride',
                  {'width': VIEWPORT[0], 'height': VIEWPORT[1], 'deviceScaleFactor': 1, 'mobile': False})

    def send(self, method, params=None, timeout=60):
        return self.b.send(method, params, self.s, timeout)

    def eval(self, expr, timeout=60):
        r = self.send('Runtime.evaluate', {'expression': expr, 'returnByValue': True, 'awaitPromise': True}, timeout)
        if 'exceptionDetails' in r:
            raise RuntimeError(f"{expr}: {r['exceptionDetails'].get('text')} {r['exceptionDetails'].get('exception', {}).get('description', '')}")
        return r['result'].get('value')

    def wait(self, expr, timeout=60, poll=0.005):
        deadline = time.time() + timeout
        while True:
            v = self.eval(expr)
            if v:
                return v
            if time.time() > deadline:
                raise TimeoutError(f'waited {timeout} s for {expr}')
            time.sleep(poll)

    def key(self, key, code, vk):
        for kind in ('rawKeyDown', 'keyUp'):
            self.send('Input.dispatchKeyEvent', {'type': kind, 'key': key, 'code': code,
                                                 'windowsVirtualKeyCode': vk, 'nativeVirtualKeyCode': vk})

    def screenshot(self, path):
        if path:
            with open(path, 'wb') as f:
                f.write(base64.b64decode(self.send('Page.captureScreenshot', {'format': 'png'})['data']))


def start_studio(tonekit, served, backend):
    proc = subprocess.Popen([tonekit, 'studio', served, '--backend', backend], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    text = ''
    deadline = time.time() + 60
    while time.time() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        text += line
        m = re.search(r'http://127\.0\.0\.1:\d+/', text)
        if m:
            threading.Thread(target=lambda: proc.stdout.read(), daemon=True).start()  # drain
            return proc, m.group(0)
    proc.kill()
    raise RuntimeError(f'no URL from tonekit studio --backend {backend}: {text}')


def open_studio(browser, url):
    page = Page(browser)
    page.send('Page.navigate', {'url': url})
    page.wait('window.studio && window.studio.ready && window.studio.renders >= 1')
    return page


def slider_latency(browser, url, op, steps, shot):
    """Arrow keys on the focused `key` slider, one step at a time, each waiting for its frame."""
    page = open_studio(browser, url)
    n = page.eval('window.studio.renders')
    page.eval(f"(() => {{ const s = document.getElementById('operator'); s.value = '{op}';"
              " s.dispatchEvent(new Event('change', { bubbles: true })); })()")
    page.wait(f'window.studio.renders > {n} && document.getElementById("canvas-a").width === 1920')
    page.eval("document.getElementById('p-key').focus()")
    lat, stages, logs = [], [], []
    for i in range(steps + 2):
        before = page.eval('window.studio.latencies.length')
        if i % 2:
            page.key('ArrowLeft', 'ArrowLeft', 37)
        else:
            page.key('ArrowRight', 'ArrowRight', 39)
        page.wait(f'window.studio.latencies.length > {before}')
        if i < 2:
            continue  # the first moves after switching operator warm the view's pipeline
        lat.append(page.eval('window.studio.lastLatencyMs'))
        stages.append(page.eval('window.studio.lastTimings'))
        logs.append(page.eval('window.studio.pageLog.at(-1)'))
    page.screenshot(shot)
    errors = page.eval('window.studio.errors')
    if errors:
        raise RuntimeError(f'page errors: {errors}')
    width = page.eval('document.getElementById("canvas-a").width')
    height = page.eval('document.getElementById("canvas-a").height')
    page.send('Page.close')
    med = statistics.median
    return {'median': med(lat), 'min': min(lat), 'max': max(lat), 'n': len(lat), 'size': f'{width}x{height}',
            'server': med(t['server'] for t in stages), 'map': med(t['map'] for t in stages),
            'encode': med(t['encode'] for t in stages), 'roundTrip': med(t['roundTrip'] for t in stages),
            'page': page_stages(logs)}


def page_stages(logs):
    """Medians of the page's own split of a render (app.js pageLog): the request until the reply's
    headers (the server's work inside), the body's bytes, drawing them, the wait for the next paint."""
    med = statistics.median
    keys = ('prepare', 'stats', 'map', 'encode', 'server', 'request', 'body', 'draw', 'paint', 'roundTrip')
    return {k: med(float(l.get(k, 0.0)) for l in logs) for k in keys}


def stage_line(p):
    return (f"server {p['server']:.1f} (prepare {p['prepare']:.1f}, stats {p['stats']:.1f}, map {p['map']:.1f}, "
            f"encode {p['encode']:.1f}); page: request to headers {p['request']:.1f}, body {p['body']:.1f}, "
            f"draw {p['draw']:.1f}, to the next paint {p['paint']:.1f}")


def playback(browser, url, seconds, temporal, shot):
    page = open_studio(browser, url)
    page.wait('document.getElementById("canvas-a").width > 0')
    if temporal:
        page.eval("document.getElementById('temporal-on').click()")
    before = page.eval('window.studio.framesPlayed')
    page.eval("document.getElementById('play').click()")
    t0 = time.time()
    time.sleep(seconds)
    page.screenshot(shot)
    page.eval("document.getElementById('play').click()")
    wall = time.time() - t0
    played = page.eval('({ n: window.studio.framesPlayed, fps: window.studio.playFps, '
                       'w: document.getElementById("canvas-a").width, h: document.getElementById("canvas-a").height })')
    logs = page.eval('window.studio.pageLog.slice(-20)')
    errors = page.eval('window.studio.errors')
    if errors:
        raise RuntimeError(f'page errors: {errors}')
    page.send('Page.close')
    return {'frames': played['n'] - before, 'fps': played['fps'], 'overall': (played['n'] - before) / wall,
            'size': f"{played['w']}x{played['h']}", 'page': page_stages(logs)}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('tonekit')
    ap.add_argument('--chromium', default=os.environ.get('CHROMIUM', '/usr/lib/chromium/chromium'))
    ap.add_argument('--backends', default='cuda,cpu')
    ap.add_argument('--ops', default='reinhard,reinhard-sat')
    ap.add_argument('--steps', type=int, default=12)
    ap.add_argument('--play-s', type=float, default=4.0)
    ap.add_argument('--frames', type=int, default=48)
    ap.add_argument('--out', default='')
    ap.add_argument('--variants', default='', help="page URL queries to measure one after another, ';'-separated "
                    "(e.g. 'worker=0;worker=1'); default: the page as it is")
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix='tonekit-studio-bench-')
    shots = a.out
    if shots:
        os.makedirs(shots, exist_ok=True)
    shot = (lambda name: os.path.join(shots, name)) if shots else (lambda name: None)
    still_dir, seq_dir = os.path.join(work, 'still'), os.path.join(work, 'seq')
    os.makedirs(still_dir)
    os.makedirs(seq_dir)
    subprocess.run([a.tonekit, 'synth', 'night-drive', os.path.join(still_dir, 'night.exr'), '--size', '3840x2160'],
                   check=True, capture_output=True)
    subprocess.run([a.tonekit, 'synth', 'night-drive', os.path.join(seq_dir, 'f.%04d.exr'), '--frames', str(a.frames),
                    '--size', '1920x1080'], check=True, capture_output=True)
    profile = os.path.join(work, 'profile')
    os.makedirs(profile)
    browser = Browser(a.chromium, profile)
    version = browser.send('Browser.getVersion')['product']
    print(f'browser: {version} (headless, software compositing), viewport {VIEWPORT[0]}x{VIEWPORT[1]}')
    rows = []
    failed = False
    variants = a.variants.split(';') if a.variants else ['']
    try:
        for backend in a.backends.split(','):
            proc, base = start_studio(a.tonekit, still_dir, backend)
            try:
              for q in variants:
                url, tag = base + (f'?{q}' if q else ''), f' [{q}]' if q else ''
                for op in a.ops.split(','):
                    r = slider_latency(browser, url, op, a.steps, shot(f'latency-{backend}-{op}{q.replace("=", "")}.png'))
                    print(f"slider->pixels {backend:4s}{tag} {op:12s} {r['size']} preview of 3840x2160: median {r['median']:.1f} ms "
                          f"(min {r['min']:.1f}, max {r['max']:.1f}, n={r['n']}); server {r['server']:.1f} "
                          f"(map {r['map']:.1f}, encode {r['encode']:.1f}), request to pixels {r['roundTrip']:.1f}\n"
                          f"    {stage_line(r['page'])}")
                    rows.append((backend, f'slider -> pixels, {op}{tag}', f"{r['median']:.1f} ms (min {r['min']:.1f}, max {r['max']:.1f})",
                                 f"server {r['server']:.1f} ms, request to pixels {r['roundTrip']:.1f} ms"))
            finally:
                proc.terminate()
                proc.wait()
            proc, base = start_studio(a.tonekit, os.path.join(seq_dir, 'f.%04d.exr'), backend)
            try:
              for q in variants:
                url, tag = base + (f'?{q}' if q else ''), f' [{q}]' if q else ''
                for temporal in (False, True):
                    name = 'temporal' if temporal else 'plain'
                    r = playback(browser, url, a.play_s, temporal, shot(f'play-{backend}-{name}{q.replace("=", "")}.png'))
                    print(f"playback {backend:4s}{tag} reinhard {r['size']} of a 1920x1080 sequence, temporal {'on ' if temporal else 'off'}: "
                          f"{r['fps']:.1f} fps (last 20 frames), {r['frames']} frames in {a.play_s:.0f} s ({r['overall']:.1f} fps)\n"
                          f"    {stage_line(r['page'])} (the next frame is asked for at these headers: its server work overlaps this body)")
                    rows.append((backend, f"playing 1080p, temporal {'on' if temporal else 'off'}{tag}", f"{r['fps']:.1f} fps",
                                 f"{r['frames']} frames in {a.play_s:.0f} s"))
            finally:
                proc.terminate()
                proc.wait()
    except Exception as e:  # one clear line, the rest of the log in the profile folder
        failed = True
        print(f'FAIL {e}', file=sys.stderr)
    finally:
        browser.close()
        if browser.page_errors:
            failed = True
            print(f'page errors: {browser.page_errors}', file=sys.stderr)
    print('\n| backend | what | page measured | beside it |\n|---|---|---|---|')
    for r in rows:
        print('| ' + ' | '.join(r) + ' |')
    if failed:
        with open(os.path.join(profile, 'chromium.log'), 'rb') as f:
            sys.stderr.write(f.read()[-3000:].decode(errors='replace'))
    shutil.rmtree(work, ignore_errors=True)
    sys.exit(1 if failed else 0)


if __name__ == '__main__':
    main()
