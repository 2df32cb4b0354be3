#!/usr/bin/env python3
"""Joins tonekit_bench's JSON with the PyTorch peer's (same run) and prints the short table:
whole frame on device, GB/s, fraction of the copy bandwidth, PyTorch time and ratio; the
statistics pass; the streamed throughput against the PCIe bound."""
import json
import sys

tk = json.load(open(sys.argv[1]))
peer = {}
if len(sys.argv) > 2:
    try:
        for r in json.load(open(sys.argv[2]))["rows"]:
            peer[(r["res"], r["format"], r["op"])] = r["ms"]
    except (OSError, ValueError, KeyError) as e:
        print("no PyTorch peer results:", e)
print(f"device {tk['device']}, device-to-device copy {tk['copy_gbps']:.0f} GB/s")
print("frame: device busy while the host enqueues (no launch gap); sync ms: the same with the device idle at each")
print("frame's start (the host's launch overhead included; sessions 1-3 reported this); stats: in the frame stream")
print("(the previous frame's output is written back from L2 meanwhile); clean%: with L2 clean of it")
print(f"{'res':10} {'format':15} {'op':9} {'frame ms':>9} {'GB/s':>7} {'copy%':>6} {'sync ms':>8} {'stats ms':>9} {'stats%':>7} {'clean%':>7} {'map ms':>8} {'torch ms':>9} {'x torch':>8}")
rows = tk["rows"]
for r in rows:
    if r["stage"] != "frame" or r["variant"] != "default":
        continue
    key = (r["res"], r["format"], r["op"])
    st = next((s for s in rows if s["stage"] == "stats" and s["variant"] == "fused" and (s["res"], s["format"], s["op"]) == key), None)
    mp = next((s for s in rows if s["stage"] == "map" and s["variant"] == "default" and (s["res"], s["format"], s["op"]) == key), None)
    sy = next((s for s in rows if s["stage"] == "frame" and s["variant"] == "host-sync" and (s["res"], s["format"], s["op"]) == key), None)
    cl = next((s for s in rows if s["stage"] == "stats" and s["variant"] == "fused-clean-l2" and (s["res"], s["format"], s["op"]) == key), None)
    t = peer.get(key)
    print(f"{r['res']:10} {r['format']:15} {r['op']:9} {r['ms']:9.4f} {r['gbps']:7.0f} {100*r['copy_fraction']:5.1f}% "
          f"{sy['ms'] if sy else 0:8.4f} {st['ms'] if st else 0:9.4f} {100*st['copy_fraction'] if st else 0:6.1f}% "
          f"{100*cl['copy_fraction'] if cl else 0:6.1f}% {mp['ms'] if mp else 0:8.4f} "
          f"{t if t else 0:9.3f} {t / r['ms'] if t else 0:8.1f}")
print("variants (3840x2160):")
for r in rows:
    if r["variant"] not in ("default", "fused", "host-sync", "fused-clean-l2") or r["stage"] == "histogram+scan":
        if r["res"] == "3840x2160":
            print(f"  {r['format']:15} {r['op']:9} {r['stage']:15} {r['variant']:18} {r['ms']:8.4f} ms {100*r['copy_fraction']:5.1f}%")
for s in tk.get("streams", []):
    print(f"streamed {s['case']}: {s['fps']:.1f} frames/s vs PCIe bound {s['pcie_bound_fps']:.1f} ({100*s['fps']/s['pcie_bound_fps']:.0f}%), "
          f"H2D {s['h2d_gbps']:.1f} GB/s D2H {s['d2h_gbps']:.1f} GB/s")
