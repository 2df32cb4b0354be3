#!/usr/bin/env python3
"""Studio render latency on a machine with a GPU (issue 16; no browser there): starts `tonekit studio`
on a 4K night-drive EXR with each backend and times POST /api/render at the page's preview width
(1920), the way the page's slider sends it (a new `key` each request), from the client side
(request to last byte) and as the server reports it (X-Tonekit-Timings). Usage:
  python3 scripts/gpu_studio_latency.py TONEKIT [--renders 40] [--backends cuda,cpu]"""
import json, os, statistics, subprocess, sys, tempfile, time, urllib.request


def post(port, body):
    req = urllib.request.Request(f"http://127.0.0.1:{port}/api/render", data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    t0 = time.perf_counter()
    with urllib.request.urlopen(req, timeout=60) as r:
        data = r.read()
        timings = json.loads(r.headers["X-Tonekit-Timings"])
    return (time.perf_counter() - t0) * 1000.0, len(data), timings


def main():
    tonekit = sys.argv[1]
    renders = int(sys.argv[sys.argv.index("--renders") + 1]) if "--renders" in sys.argv else 40
    backends = sys.argv[sys.argv.index("--backends") + 1].split(",") if "--backends" in sys.argv else ["cuda", "cpu"]
    work = tempfile.mkdtemp()
    image = os.path.join(work, "in.exr")
    subprocess.run([tonekit, "synth", "night-drive", image, "--size", "3840x2160"], check=True, capture_output=True)
    for backend in backends:
        for op in ("reinhard", "reinhard-sat"):
            port = 18765
            proc = subprocess.Popen([tonekit, "studio", image, "--backend", backend, "--port", str(port)],
                                    stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            try:
                for _ in range(100):
                    try:
                        urllib.request.urlopen(f"http://127.0.0.1:{port}/api/status", timeout=1).read()
                        break
                    except OSError:
                        time.sleep(0.1)
                total, server, stages = [], [], {}
                for i in range(renders + 3):
                    body = {"image": 0, "operator": op, "params": {"key": 0.10 + 0.005 * i}, "width": 1920, "view": "a", "seq": i + 1}
                    ms, size, t = post(port, body)
                    if i < 3:
                        continue  # the first renders prepare the preview and the pipeline
                    total.append(ms)
                    server.append(t["server"])
                    for k in ("stats", "map", "encode"):
                        stages.setdefault(k, []).append(t[k])
                med = statistics.median
                print(f"studio {backend:4s} {op:12s} 1920x1080 preview of 3840x2160: request {med(total):6.1f} ms "
                      f"(min {min(total):5.1f}), server {med(server):6.1f} ms "
                      f"(stats {med(stages['stats']):.1f}, map {med(stages['map']):.1f}, encode {med(stages['encode']):.1f}), "
                      f"{size / 1e6:.1f} MB reply, {renders} renders")
            finally:
                proc.terminate()
                proc.wait()


if __name__ == "__main__":
    main()
