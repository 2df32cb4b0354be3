#!/usr/bin/env python3
"""The include layers of docs/architecture.md ("Layers"), checked on every `#include "..."`.

Rules (the tables below are the document's):
  include/   includes only include/ (the public headers are self-contained);
  apps/      includes only include/ and apps/;
  python/    (the Python module's bindings) includes only include/ and python/, as apps/ do;
  examples/X includes only include/ and examples/X;
  bench/     includes only include/, bench/ and the one internal set, BENCH_INTERNAL (reached
             through the CMake target tonekit_internal_for_bench);
  src/F      includes only include/, src/F and the src layers LAYERS lists under F (a layer is
             the longest folder of the table that holds the file: src/cuda/interop is cuda);
  and the src layers' include graph has no cycle.
tests/ may include anything and is not scanned.

An include is resolved as the compiler does for quotes: beside the including file first, then
from the include roots (include/, src/, apps/). One that resolves nowhere is an error too, except
the generated tonekit/version.hpp.

Usage: check_layers.py [ROOT]   (ROOT: the repository, default: two folders up from here).
Exit 0 when the tree follows the rules; 1 with one line per violation otherwise.
"""
import os
import re
import sys

# src layer -> the src layers it may include besides itself, lowest layer first. Each layer's
# list holds only layers listed before it, so the table is a partial order (no cycle). A layer is
# a folder under src/; a file belongs to the longest one that holds it (src/cpu/blur/x.cpp to
# cpu/blur, src/cpu/local/x.cpp to cpu).
LAYERS = {
    "core": [],
    "cpu/sat": ["core"],
    "cpu": ["core", "cpu/sat"],
    "cpu/blur": ["core", "cpu/sat", "cpu"],
    "cpu/quality": ["core", "cpu/sat", "cpu"],
    "cpu/synth": ["core", "cpu/sat", "cpu"],
    "io": [],
    "api": ["core", "cpu/sat", "cpu", "cpu/blur", "cpu/quality", "cpu/synth"],
    "cuda": ["core", "cpu/sat", "cpu", "cpu/blur", "cpu/quality", "cpu/synth", "api"],
}

# The internal headers the benchmarks may include (each times an internal variant or codec
# setting the public API does not expose).
BENCH_INTERNAL = {
    "src/core/local_settings.hpp",
    "src/cuda/blur/night_engine.hpp",
    "src/cuda/local/local_launch.hpp",
    "src/cuda/local/sat_gpu.hpp",
    "src/cuda/tuning.hpp",
    "src/io/png_encoding.hpp",
    "src/cpu/sat/sat_table.hpp",
}

SOURCE_SUFFIXES = (".c", ".cc", ".cpp", ".cxx", ".h", ".hpp", ".cuh", ".cu", ".inl")
SCANNED = ("include", "src", "apps", "examples", "bench", "python")
INCLUDE_ROOTS = ("include", "src", "apps")
GENERATED = {"tonekit/version.hpp"}
INCLUDE_RE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')


def check_table():
    errors = []
    order = list(LAYERS)
    for folder, below in LAYERS.items():
        for b in below:
            if b not in LAYERS:
                errors.append(f"LAYERS: {folder} lists unknown folder {b}")
            elif order.index(b) >= order.index(folder):
                errors.append(f"LAYERS: {folder} lists {b}, which is not below it")
    return errors


def area_of(rel):
    """What a repository path belongs to: ('include',), ('src', F), ('apps',), ('examples', X),
    ('bench',), ('tests',) or ('other',)."""
    parts = rel.split("/")
    if parts[0] == "src" and len(parts) > 2:
        folder = "/".join(parts[1:-1])
        while folder not in LAYERS and "/" in folder:
            folder = folder.rsplit("/", 1)[0]
        return ("src", folder)
    if parts[0] == "examples" and len(parts) > 2:
        return ("examples", parts[1])
    if parts[0] in ("include", "apps", "bench", "tests", "python"):
        return (parts[0],)
    return ("other",)


def resolve(root, rel_file, inc):
    here = os.path.dirname(rel_file)
    for base in [here] + list(INCLUDE_ROOTS):
        cand = os.path.normpath(os.path.join(base, inc))
        if os.path.isfile(os.path.join(root, cand)):
            return cand.replace(os.sep, "/")
    return None


def allowed(src_area, target_rel):
    """None when the include is allowed, else the reason."""
    dst = area_of(target_rel)
    if dst == ("include",):
        return None
    kind = src_area[0]
    if kind == "include":
        return "a public header includes only include/"
    if kind == "apps":
        return None if dst == ("apps",) else "apps/ includes only include/ and apps/"
    if kind == "python":
        return None if dst == ("python",) else "python/ includes only include/ and python/"
    if kind == "examples":
        return None if dst == src_area else f"examples/{src_area[1]} includes only include/ and its own folder"
    if kind == "bench":
        if dst == ("bench",) or target_rel in BENCH_INTERNAL:
            return None
        return "bench/ includes only include/, bench/ and the internal set BENCH_INTERNAL"
    if kind == "src":
        folder = src_area[1]
        if dst[0] != "src":
            return f"src/{folder} includes only include/ and src/"
        if folder not in LAYERS:
            return f"src/{folder} is not in the layer table"
        if dst[1] == folder or dst[1] in LAYERS[folder]:
            return None
        return f"src/{folder} may include {', '.join(LAYERS[folder]) or 'no other src folder'} (layer table)"
    return None


def cycles(graph):
    """The groups of src folders that reach each other through includes (strongly connected
    components of more than one folder), each sorted: [] when the graph has no cycle."""
    index, low, on_stack, stack, groups = {}, {}, set(), [], []

    def visit(n):
        index[n] = low[n] = len(index)
        stack.append(n)
        on_stack.add(n)
        for m in sorted(graph.get(n, ())):
            if m not in index:
                visit(m)
                low[n] = min(low[n], low[m])
            elif m in on_stack:
                low[n] = min(low[n], index[m])
        if low[n] == index[n]:
            group = []
            while True:
                m = stack.pop()
                on_stack.discard(m)
                group.append(m)
                if m == n:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for n in sorted(graph):
        if n not in index:
            visit(n)
    return groups


def scan(root):
    errors = check_table()
    graph = {}
    for top in SCANNED:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, top)):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
            for name in sorted(filenames):
                if not name.endswith(SOURCE_SUFFIXES):
                    continue
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, root).replace(os.sep, "/")
                src_area = area_of(rel)
                with open(path, encoding="utf-8", errors="replace") as f:
                    for lineno, line in enumerate(f, 1):
                        m = INCLUDE_RE.match(line)
                        if not m:
                            continue
                        inc = m.group(1)
                        target = resolve(root, rel, inc)
                        if target is None:
                            if inc not in GENERATED:
                                errors.append(f'{rel}:{lineno}: #include "{inc}" resolves to no file')
                            continue
                        why = allowed(src_area, target)
                        if why:
                            errors.append(f'{rel}:{lineno}: #include "{inc}" ({target}): {why}')
                        dst = area_of(target)
                        if src_area[0] == "src" and dst[0] == "src" and dst[1] != src_area[1]:
                            graph.setdefault(src_area[1], set()).add(dst[1])
    for group in cycles(graph):
        errors.append("src folders include each other (a cycle): " + ", ".join(group))
    return errors


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    root = os.path.abspath(root)
    errors = scan(root)
    for e in errors:
        print(e)
    if errors:
        print(f"check_layers: {len(errors)} violation(s) of the layers in docs/architecture.md")
        return 1
    print("check_layers: every include follows the layers of docs/architecture.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
