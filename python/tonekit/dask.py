"""Batches of files over a dask.distributed cluster, with `tonekit map`'s rules.

    from tonekit.dask import map_files
    table = map_files(["shots/"], "out/{name}.png", op="reinhard", key=0.12)   # a LocalCluster
    table = map_files(files, "out/{name}_{op}.png", client=Client("tcp://scheduler:8786"))
    print(table)   # file, output, backend, seconds, status (and the error of a failed file)

    python -m tonekit.dask shots/ -o out/{name}.png --op drago --set bias=0.8 --workers 4

Everything the user gave (operator, parameters, backend, output formats, pattern collisions) is
checked on the client before any task runs, as `tonekit map` does. Each task maps one file (or a
chunk of files) on its worker with the worker's local backend (`auto`: its GPU when it has one;
workers started with a `GPU` resource get one task at a time per GPU). Outputs are written through
a temporary file renamed into place, so a task that dies or is retried on another worker never
leaves a partial file, and a file written twice is written with the same bytes. A failing file is
reported in its row and the others finish; the summary counts both (`tonekit: N written, M
failed`, exit code 1, 2 when the system refused a write).
"""
import argparse
import glob
import os
import sys
import time
from typing import List, NamedTuple, Optional

import tonekit

HDR_EXTENSIONS = (".exr", ".hdr", ".pic", ".pfm", ".rgbe")
_OUTPUT_BITS = {".png": (0, 8, 16), ".jpg": (0, 8), ".jpeg": (0, 8), ".exr": (0, 16, 32), ".hdr": (0, 32),
                ".pfm": (0, 32)}


class Row(NamedTuple):
    file: str
    output: str
    backend: str
    seconds: float
    status: str          # "ok" or "failed"
    error: str = ""      # the library's one-line message of a failed file
    code: str = ""       # the exception's class name (InvalidArgument, BadInput, IOFailure, ...)


class Table(list):
    """The rows of a batch in input order; `written`, `failed`, `exit_code`, `to_pandas()`."""

    @property
    def written(self) -> int:
        return sum(r.status == "ok" for r in self)

    @property
    def failed(self) -> int:
        return sum(r.status != "ok" for r in self)

    @property
    def exit_code(self) -> int:
        if not self.failed:
            return 0
        return 2 if any(r.code in ("IOFailure", "OutOfMemory", "RuntimeFailure", "NoDevice") for r in self) else 1

    def to_pandas(self):
        import pandas
        return pandas.DataFrame([r._asdict() for r in self])

    def __str__(self):
        lines = [f"{'file':40} {'backend':7} {'seconds':>8}  status"]
        for r in self:
            lines.append(f"{r.file[-40:]:40} {r.backend:7} {r.seconds:8.3f}  {r.status}"
                         + (f": {r.error}" if r.error else ""))
        lines.append(f"tonekit: {self.written} written, {self.failed} failed")
        return "\n".join(lines)


# ---- the jobs, checked on the client ----

def expand_inputs(paths) -> List[str]:
    """Files as given; folders become their HDR files, sorted, not recursive (as `tonekit map`)."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    files = []
    for path in map(str, paths):
        if os.path.isdir(path):
            found = sorted(os.path.join(path, n) for n in os.listdir(path)
                           if os.path.splitext(n)[1].lower() in HDR_EXTENSIONS
                           and os.path.isfile(os.path.join(path, n)))
            if not found:
                raise tonekit.BadInput(f"{path}: no .exr, .hdr, .pic or .pfm files in this folder")
            files.extend(found)
        else:
            files.append(path)
    return files


def expand_pattern(pattern: str, path: str, op: str, backend: str, index: int) -> str:
    """`tonekit map -o` placeholders: {name} {ext} {op} {backend} {index} (1-based, 4 digits)."""
    out, i = [], 0
    while i < len(pattern):
        if pattern[i] == "{":
            close = pattern.find("}", i)
            if close < 0:
                raise tonekit.InvalidArgument(f"-o pattern '{pattern}': unclosed '{{'")
            key = pattern[i + 1:close]
            stem, ext = os.path.splitext(os.path.basename(path))
            values = {"name": stem, "ext": ext[1:], "op": op, "backend": backend, "index": f"{index:04d}"}
            if key not in values:
                raise tonekit.InvalidArgument(f"-o pattern '{pattern}': unknown placeholder {{{key}}} "
                                              "(known: {name}, {ext}, {op}, {backend}, {index})")
            out.append(values[key])
            i = close + 1
        else:
            out.append(pattern[i])
            i += 1
    return "".join(out)


def plan_jobs(inputs, output_pattern: str, op: str, backend: str, bits: int):
    files = expand_inputs(inputs)
    pattern = str(output_pattern)
    if pattern.endswith("/") or os.path.isdir(pattern):
        pattern = os.path.join(pattern, "{name}.png")
    if len(files) > 1 and "{name}" not in pattern and "{index}" not in pattern:
        raise tonekit.InvalidArgument(f"-o pattern '{pattern}' needs {{name}} or {{index}} for several inputs")
    jobs, taken = [], {}
    for index, path in enumerate(files, 1):
        out = expand_pattern(pattern, path, op, backend, index)
        if out in taken:
            raise tonekit.InvalidArgument(f"{path} and {taken[out]} would both be written to {out}")
        taken[out] = path
        ext = os.path.splitext(out)[1].lower()
        if ext not in _OUTPUT_BITS:
            raise tonekit.InvalidArgument(f"cannot tell the output format from '{out}': use .png, .jpg, .exr, .hdr or .pfm")
        if bits not in _OUTPUT_BITS[ext]:
            raise tonekit.InvalidArgument(f"--bits {bits} is not available for {ext} output")
        if os.path.exists(out) and os.path.samefile(path, out):
            raise tonekit.InvalidArgument(f"{out}: would overwrite its own input")
        jobs.append((path, out))
    return jobs


def _output_dtype(path: str, bits: int) -> str:
    ext = os.path.splitext(path)[1].lower()
    if ext in (".png", ".jpg", ".jpeg"):
        return "uint16" if bits == 16 else "uint8"
    return "float32"


# ---- on the workers ----

def _worker_device() -> Optional[int]:
    """The GPU this worker maps on: its name's number modulo the devices it sees (one worker per
    GPU when a LocalCluster or `dask worker --name N` numbers them), or None without CUDA."""
    if not tonekit.cuda_available():
        return None
    try:
        from distributed import get_worker
        name = get_worker().name
        count = tonekit._native.cuda_device_count()
        return int(name) % count if count and str(name).lstrip("-").isdigit() else 0
    except (ImportError, ValueError):
        return 0


def _map_one(path: str, out: str, s: dict) -> Row:
    backend = tonekit.backend_for(s["backend"])
    t0 = time.perf_counter()
    try:
        image = tonekit.read(path)
        channels = 3 if os.path.splitext(out)[1].lower() in (".jpg", ".jpeg", ".hdr", ".pfm") else None
        mapped = tonekit.map(image, s["op"], s["backend"], dtype=_output_dtype(out, s["bits"]), channels=channels,
                             glare=s["glare"], glare_threshold=s["glare_threshold"], glare_radius=s["glare_radius"],
                             **s["params"])
        if s.get("delay"):  # tests: keeps tasks in flight long enough to kill a worker mid-run
            time.sleep(s["delay"])
        # The writers put the bytes in OUT.tmp-XXXXXX and rename it: OUT appears whole or not at all.
        folder = os.path.dirname(out)
        if folder:
            os.makedirs(folder, exist_ok=True)
        tonekit.write(out, mapped, bits=32 if s["bits"] == 32 else 0, jpeg_quality=s["jpeg_quality"],
                      png_level=s["png_level"])
        return Row(path, out, backend, time.perf_counter() - t0, "ok")
    except tonekit.Error as e:
        return Row(path, out, backend, time.perf_counter() - t0, "failed", str(e), type(e).__name__)
    except OSError as e:  # a folder that cannot be made
        return Row(path, out, backend, time.perf_counter() - t0, "failed", f"{out}: {e.strerror}", "IOFailure")


def map_chunk(jobs, settings: dict) -> List[Row]:
    """One task: the files of a chunk, in order, each with its own row (a failure stays in its row)."""
    device = _worker_device() if settings["backend"] != "cpu" else None
    if device is not None:
        tonekit._native.use_cuda_device(device)
    return [_map_one(path, out, settings) for path, out in jobs]


def remove_stale_temporaries(outputs) -> int:
    """Temporaries a killed task left beside its outputs (OUT.tmp-XXXXXX); returns how many."""
    removed = 0
    for out in outputs:
        for stale in glob.glob(glob.escape(out) + ".tmp-*"):
            try:
                os.remove(stale)
                removed += 1
            except FileNotFoundError:
                pass
    return removed


# ---- the client ----

def local_cluster(workers: int, **kwargs):
    """A LocalCluster of `workers` one-thread processes without a dashboard. Its GPU diagnostics are
    off: distributed 2022.12 (Debian 12's) fails to start any cluster on a host whose pynvml returns
    GPU names as str (pynvml >= 11.5), and a batch does not need them."""
    import dask
    from distributed import LocalCluster
    os.environ["DASK_DISTRIBUTED__DIAGNOSTICS__NVML"] = "False"  # inherited by the worker processes
    with dask.config.set({"distributed.diagnostics.nvml": False}):
        return LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None, **kwargs)


def map_files(inputs, output_pattern, op: str = "reinhard", client=None, *, backend: str = "auto", bits: int = 0,
              jpeg_quality: int = 92, png_level: int = 1, glare: float = 0.0, glare_threshold=None,
              glare_radius=None, chunk_size: int = 1, progress: Optional[bool] = None, workers: Optional[int] = None,
              _delay: float = 0.0, **params) -> Table:
    """Maps files on the workers of a dask.distributed cluster; returns a Table of rows (file, output,
    backend, seconds, status, error) in input order.

    inputs: files or folders (their .exr/.hdr/.pic/.pfm files); output_pattern: `tonekit map -o`'s
    ({name}, {ext}, {op}, {backend}, {index}; a folder means FOLDER/{name}.png). client: a
    distributed.Client; None starts a LocalCluster (`workers` processes, one thread each) for this
    call. chunk_size: files per task. progress: Dask's progress bar (default: when stderr is a
    terminal). params: the operator's parameters, checked by the registry before anything runs.
    """
    from distributed import Client, wait
    tonekit._native.validate(op, params)
    tonekit.backend_for(backend)  # an unknown backend fails here
    if not 1 <= int(jpeg_quality) <= 100:
        raise tonekit.InvalidArgument("--jpeg-quality must be in [1, 100]")
    if not 0 <= int(png_level) <= 9:
        raise tonekit.InvalidArgument("--png-level must be in [0, 9]")
    if chunk_size < 1:
        raise tonekit.InvalidArgument("chunk_size must be >= 1")
    jobs = plan_jobs(inputs, output_pattern, op, backend, int(bits))
    settings = dict(op=op, backend=backend, bits=int(bits), jpeg_quality=int(jpeg_quality), png_level=int(png_level),
                    glare=float(glare), glare_threshold=glare_threshold, glare_radius=glare_radius,
                    params=dict(params), delay=_delay)
    own = None
    if client is None:
        own = local_cluster(workers or min(4, os.cpu_count() or 1))
        client = Client(own)
    try:
        # Workers that declared GPUs (dask worker --resources GPU=1) take one task per GPU at a time.
        info = client.scheduler_info().get("workers", {})
        gpu_workers = backend != "cpu" and any(w.get("resources", {}).get("GPU") for w in info.values())
        resources = {"GPU": 1} if gpu_workers else None
        chunks = [jobs[i:i + chunk_size] for i in range(0, len(jobs), chunk_size)]
        futures = [client.submit(map_chunk, chunk, settings, pure=False, resources=resources,
                                 key=f"tonekit-map-{i}-{os.getpid()}-{time.monotonic_ns()}")
                   for i, chunk in enumerate(chunks)]
        if progress if progress is not None else sys.stderr.isatty():
            from distributed import progress as dask_progress
            dask_progress(futures)
        wait(futures)
        rows = Table()
        for future, chunk in zip(futures, chunks):
            try:
                rows.extend(future.result())
            except Exception as e:  # the task itself died (its worker, every retry): each file fails
                rows.extend(Row(p, o, "", 0.0, "failed", f"{p}: task failed: {e}", "RuntimeFailure") for p, o in chunk)
        remove_stale_temporaries(o for _, o in jobs)
        return rows
    finally:
        if own is not None:
            client.close()
            own.close()


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m tonekit.dask",
                                description="tonekit map over a dask.distributed cluster: one task per file "
                                            "(or per --chunk-size files), outputs whole or not at all.")
    p.add_argument("paths", nargs="+", help="inputs: files or folders")
    p.add_argument("-o", "--output", required=True,
                   help="output pattern: {name} {ext} {op} {backend} {index}; the extension picks the format")
    p.add_argument("--op", default="reinhard", help="operator id (tonekit ops)")
    p.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", help="operator parameter (repeatable)")
    p.add_argument("--backend", default="auto", help="cpu, cuda or auto (each worker's own GPU when it has one)")
    p.add_argument("--bits", type=int, default=0, help="png 8|16, jpg 8, exr 16|32, hdr/pfm 32")
    p.add_argument("--jpeg-quality", "--quality", type=int, default=92)
    p.add_argument("--png-level", type=int, default=1)
    p.add_argument("--glare", type=float, default=0.0)
    p.add_argument("--glare-threshold", type=float, default=None)
    p.add_argument("--glare-radius", type=float, default=None)
    p.add_argument("--scheduler", help="address of a running scheduler (default: a LocalCluster)")
    p.add_argument("--workers", type=int, default=None, help="LocalCluster worker processes (default: min(4, cores))")
    p.add_argument("--chunk-size", type=int, default=1, help="files per task")
    p.add_argument("--table", action="store_true", help="print the table of files on stdout")
    a = p.parse_args(argv)
    try:
        params = {}
        for s in a.set:
            name, eq, value = s.partition("=")
            if not eq or not name:
                raise tonekit.InvalidArgument(f"--set expects NAME=VALUE, got '{s}'")
            params[name] = value
        client = None
        if a.scheduler:
            from distributed import Client
            client = Client(a.scheduler)
        table = map_files(a.paths, a.output, a.op, client, backend=a.backend, bits=a.bits,
                          jpeg_quality=a.jpeg_quality, png_level=a.png_level, glare=a.glare,
                          glare_threshold=a.glare_threshold, glare_radius=a.glare_radius,
                          chunk_size=a.chunk_size, workers=a.workers, **params)
    except tonekit.Error as e:
        print(f"tonekit: error: {e}", file=sys.stderr)
        return 2 if isinstance(e, (tonekit.IOFailure, tonekit.NoDevice, tonekit.OutOfMemory,
                                   tonekit.RuntimeFailure)) else 1
    for r in table:
        if r.status != "ok":
            print(f"tonekit: error: {r.error}", file=sys.stderr)
    if a.table:
        print(table)
    if table.failed:
        print(f"tonekit: {table.written} written, {table.failed} failed", file=sys.stderr)
    return table.exit_code


if __name__ == "__main__":
    # Through the imported module, so that the tasks name tonekit.dask.map_chunk (which the
    # workers import), not functions of __main__.
    from tonekit.dask import main as _main
    sys.exit(_main())
