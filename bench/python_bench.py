#!/usr/bin/env python3
"""The Python package's costs (issue 35), each figure printed beside the CPU model or GPU name:

  host    tonekit.map on a NumPy 4K float RGB image (reinhard, cpu backend) against the C++ host API
          (tone_map on the same view, output buffer reused) in the same process, calls alternating;
          overhead = median(Python) / median(C++) - 1.
  gpu     a 4K half RGBA PyTorch tensor (and CuPy when installed): tonekit.map per frame end to end
          in Python (N calls on the current stream, then one synchronise), the C++ ToneMapper loop
          on the same tensors in the same run, and the obvious PyTorch version (bench/peer_torch.py).
  dask    tonekit.dask.map_files over LocalClusters of 1, 2, 4, 8 worker processes on the same
          files (EXRs made with tonekit.synth when the folder is empty): images/s, scaling
          efficiency (rate_n / (n rate_1)), and the same batch with one worker killed mid-run;
          beside them `tonekit map` on the same files (TONEKIT_CLI, default build/bin/tonekit).

Usage: PYTHONPATH=build/python python3 bench/python_bench.py [host] [gpu] [dask]
         [--size 3840x2160] [--files 200] [--workers 1,2,4,8] [--dask-size 3840x2160] [--dir DIR]
Prints one line per figure: `python-bench,<name>,<value>,<unit>,<machine>`, then a summary.
"""
import argparse
import os
import platform
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time

import numpy as np

import tonekit


def cpu_model():
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
        for line in out.splitlines():
            if line.startswith("Model name:"):
                return f"{line.split(':', 1)[1].strip()} ({os.cpu_count()} CPUs)"
    except OSError:
        pass
    return f"{platform.processor() or 'unknown CPU'} ({os.cpu_count()} CPUs)"


def gpu_name():
    try:
        import torch
        if torch.cuda.is_available():
            return torch.cuda.get_device_name(0)
    except ImportError:
        pass
    try:
        return subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"], capture_output=True,
                              text=True).stdout.splitlines()[0]
    except (OSError, IndexError):
        return "no GPU"


RESULTS = []


def report(name, value, unit, machine):
    RESULTS.append((name, value, unit, machine))
    print(f"python-bench,{name},{value:.6g},{unit},{machine}", flush=True)


def parse_size(text):
    w, h = text.lower().split("x")
    return int(w), int(h)


# ---- host ----

def bench_host(width, height, pairs=15):
    machine = cpu_model()
    img = tonekit.synth("night-drive", width, height)
    tonekit.map(img, "reinhard", "cpu")  # warm-up: workers, page faults of the first output
    cpp, py = [], []
    for _ in range(pairs):
        cpp.append(tonekit._native._time_host_api(img, "reinhard", "cpu", 2)[-1])  # 2nd call: buffer reused
        t0 = time.perf_counter()
        tonekit.map(img, "reinhard", "cpu")
        py.append(time.perf_counter() - t0)
    c, p = statistics.median(cpp), statistics.median(py)
    report(f"host_{width}x{height}_reinhard_cpp_ms", 1e3 * c, "ms", machine)
    report(f"host_{width}x{height}_reinhard_python_ms", 1e3 * p, "ms", machine)
    report("host_python_overhead", 100 * (p / c - 1), "%", machine)


# ---- gpu ----

def time_loop(fn, frames, sync):
    fn()
    sync()
    best = []
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(frames):
            fn()
        sync()
        best.append((time.perf_counter() - t0) / frames)
    return statistics.median(best)


def bench_gpu(width, height, frames=500):
    if not tonekit.cuda_available():
        print("python-bench: gpu: skipped (no CUDA device or no CUDA in this build)")
        return
    try:
        import torch
    except ImportError:
        print("python-bench: gpu: skipped (PyTorch is not installed)")
        return
    machine = gpu_name()
    x = (torch.rand((height, width, 4), device="cuda") * 8).half()
    x[..., 3] = 1
    sync = torch.cuda.synchronize
    py = time_loop(lambda: tonekit.map(x, "reinhard", dither=0), frames, sync)
    out = torch.empty((height, width, 4), dtype=torch.uint8, device="cuda")
    stream = torch.cuda.current_stream().cuda_stream
    cpp = statistics.median(tonekit._native._time_device_api(
        x.data_ptr(), height, width, 4, width * 8, "float16", x.device.index, out.data_ptr(), width * 4, "uint8", 4,
        stream, "reinhard", {"dither": 0}, frames) for _ in range(5))
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from peer_torch import tone_map as torch_tone_map
    peer = time_loop(lambda: torch_tone_map(x, "reinhard"), frames // 5, sync)
    tag = f"gpu_{width}x{height}_half_rgba_reinhard"
    report(f"{tag}_python_ms", 1e3 * py, "ms/frame", machine)
    report(f"{tag}_cpp_loop_ms", 1e3 * cpp, "ms/frame", machine)
    report(f"{tag}_python_overhead", 100 * (py / cpp - 1), "%", machine)
    report(f"{tag}_pytorch_obvious_ms", 1e3 * peer, "ms/frame", machine)
    report(f"{tag}_speedup_vs_pytorch", peer / py, "x", machine)
    try:
        import cupy
        xc = cupy.asarray(x)
        cp = time_loop(lambda: tonekit.map(xc, "reinhard", dither=0), frames, cupy.cuda.Device().synchronize)
        report(f"{tag}_cupy_python_ms", 1e3 * cp, "ms/frame", machine)
    except ImportError:
        print("python-bench: gpu: CuPy is not installed (its figure skipped)")


# ---- dask ----

_SCENES = {}


def _write_input(job):
    """One input file (a worker process of make_inputs): scene i % 5 at exposure 0.5 + i / files."""
    path, i, files, width, height = job
    scenes = tonekit.scenes()
    name = scenes[i % len(scenes)]
    if name not in _SCENES:
        _SCENES[name] = tonekit.synth(name, width, height)
    tonekit.write(path, _SCENES[name] * np.float32(0.5 + i / files))


def make_inputs(folder, files, width, height):
    os.makedirs(folder, exist_ok=True)
    have = [n for n in os.listdir(folder) if n.endswith(".exr")]
    if len(have) >= files:
        return
    # Each file a different exposure of a scene, so no two outputs are the same bytes; written on
    # every core (a 4K EXR takes ~1 s to synthesise and compress: 200 of them serially are minutes).
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    jobs = [(os.path.join(folder, f"f{i:04d}.exr"), i, files, width, height) for i in range(files)]
    t0 = time.perf_counter()
    with ProcessPoolExecutor(os.cpu_count() or 1, mp_context=multiprocessing.get_context("spawn")) as pool:
        list(pool.map(_write_input, jobs, chunksize=max(1, files // (4 * (os.cpu_count() or 1)))))
    print(f"python-bench: {files} inputs of {width}x{height} written in {time.perf_counter() - t0:.1f} s")


def bench_process_pool(files, workers_list, backend, machine):
    """Without dask.distributed (a GPU host's pip Python may lack it): the same per-file tasks
    (tonekit.dask.map_chunk) on a process pool of n workers, labelled as such; no fault run (a
    killed process breaks the pool)."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from tonekit.dask import map_chunk, plan_jobs
    spawn = multiprocessing.get_context("spawn")  # this process has started CUDA: no fork
    settings = dict(op="reinhard", backend=backend, bits=0, jpeg_quality=92, png_level=1, glare=0.0,
                    glare_threshold=None, glare_radius=None, params={}, delay=0.0)
    base = None
    for n in workers_list:
        with tempfile.TemporaryDirectory(dir=os.path.dirname(files[0])) as out, ProcessPoolExecutor(n, mp_context=spawn) as pool:
            jobs = plan_jobs(files, os.path.join(out, "{name}.png"), "reinhard", backend, 0)
            list(pool.map(map_chunk, [[j] for j in jobs[:n]], [settings] * n))  # warm-up: imports, CUDA
            t0 = time.perf_counter()
            rows = [r for chunk in pool.map(map_chunk, [[j] for j in jobs], [settings] * len(jobs)) for r in chunk]
            rate = len(files) / (time.perf_counter() - t0)
            assert all(r.status == "ok" for r in rows), [r for r in rows if r.status != "ok"][:3]
        base = base or rate / n
        report(f"process_pool_{n}_workers_images_per_s", rate, "images/s", machine + "; no dask: process pool")
        report(f"process_pool_{n}_workers_scaling_efficiency", 100 * rate / (n * base), "%",
               machine + "; no dask: process pool")


def bench_dask(folder, workers_list, backend, width):
    machine = f"{cpu_model()}; backend {tonekit.backend_for(backend)}" + (
        f" ({gpu_name()})" if tonekit.backend_for(backend) == "cuda" else "")
    files = sorted(os.path.join(folder, n) for n in os.listdir(folder) if n.endswith(".exr"))
    cli = os.environ.get("TONEKIT_CLI") or os.path.join(os.path.dirname(os.path.dirname(tonekit.__file__)), "..",
                                                         "bin", "tonekit")
    if os.path.exists(cli):
        # The baseline: the same files through `tonekit map`'s own pipeline, one process.
        with tempfile.TemporaryDirectory(dir=folder) as out:
            t0 = time.perf_counter()
            subprocess.run([cli, "map", *files, "-o", os.path.join(out, "{name}.png"), "--backend", backend],
                           check=True)
            report("tonekit_map_cli_images_per_s", len(files) / (time.perf_counter() - t0), "images/s", machine)
    try:
        from distributed import Client
    except ImportError:
        print("python-bench: dask.distributed is not installed: the same tasks on a process pool instead")
        bench_process_pool(files, workers_list, backend, machine)
        return
    from tonekit.dask import local_cluster, map_files
    rates = {}
    for n in workers_list:
        with local_cluster(n, host="127.0.0.1") as cluster, Client(cluster) as client:
            with tempfile.TemporaryDirectory(dir=folder) as out:
                # Warm-up: the workers import tonekit and start their backend.
                map_files(files[:n], os.path.join(out, "w-{name}.png"), client=client, backend=backend,
                          progress=False)
                t0 = time.perf_counter()
                table = map_files(files, os.path.join(out, "{name}.png"), client=client, backend=backend,
                                  progress=False)
                seconds = time.perf_counter() - t0
                assert table.failed == 0, str(table)
            rates[n] = len(files) / seconds
            report(f"dask_{n}_workers_images_per_s", rates[n], "images/s", machine)
            report(f"dask_{n}_workers_scaling_efficiency", 100 * rates[n] / (n * rates[workers_list[0]] /
                                                                             workers_list[0]), "%", machine)
            if n == max(workers_list) and n > 1:
                # The same batch with one worker killed once a fifth of the outputs exist.
                with tempfile.TemporaryDirectory(dir=folder) as out:
                    victim = sorted(client.run(os.getpid).values())[0]

                    def kill():
                        while len(os.listdir(out)) < len(files) // 5:
                            time.sleep(0.01)
                        os.kill(victim, signal.SIGKILL)

                    killer = threading.Thread(target=kill, daemon=True)
                    killer.start()
                    t0 = time.perf_counter()
                    table = map_files(files, os.path.join(out, "{name}.png"), client=client, backend=backend,
                                      progress=False)
                    fault = time.perf_counter() - t0
                    assert table.failed == 0 and len(os.listdir(out)) == len(files), str(table)
                report(f"dask_{n}_workers_fault_run_overhead", 100 * (fault * rates[n] / len(files) - 1), "%", machine)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("parts", nargs="*", default=["host", "gpu", "dask"])
    p.add_argument("--size", default="3840x2160")
    p.add_argument("--files", type=int, default=200)
    p.add_argument("--dask-size", default="3840x2160")
    p.add_argument("--workers", default="1,2,4,8")
    p.add_argument("--backend", default="auto")
    p.add_argument("--dir", default=None, help="folder of the Dask inputs (made when empty; default: a temporary one)")
    a = p.parse_args()
    w, h = parse_size(a.size)
    print(f"python-bench: tonekit {tonekit.__version__}, Python {platform.python_version()}, NumPy {np.__version__}; "
          f"CPU {cpu_model()}; GPU {gpu_name()}")
    if "host" in a.parts:
        bench_host(w, h)
    if "gpu" in a.parts:
        bench_gpu(w, h)
    if "dask" in a.parts:
        dw, dh = parse_size(a.dask_size)
        tmp = None
        folder = a.dir
        if folder is None:
            tmp = tempfile.TemporaryDirectory(prefix="tonekit-dask-bench-")
            folder = tmp.name
        make_inputs(folder, a.files, dw, dh)
        bench_dask(folder, [int(n) for n in a.workers.split(",")], a.backend, dw)
        if tmp:
            tmp.cleanup()
    print("\nsummary:")
    for name, value, unit, machine in RESULTS:
        print(f"  {name:48} {value:10.4g} {unit:10} [{machine}]")


if __name__ == "__main__":
    main()
