#!/usr/bin/env python3
"""The PyTorch peer: the same global operators written the obvious way in PyTorch (elementwise
tensor ops, torch reductions, torch.histc + cumsum for histeq), timed with CUDA events in the same
run as tonekit_bench: warm-up, median of many runs, rotating inputs. Same formats: half RGBA ->
RGBA8 and float RGB -> RGB8 (sRGB, no dither). Writes JSON (--json) and prints a table."""
import argparse
import json
import statistics

import torch


def srgb(v):
    v = v.clamp(0, 1)
    return torch.where(v <= 0.0031308, 12.92 * v, 1.055 * v.pow(1 / 2.4) - 0.055)


def tone_map(x, op, bins=1024):
    rgb = torch.nan_to_num(x[..., :3].float(), nan=0.0, posinf=65504.0, neginf=0.0).clamp_min(0)
    lw = 0.2126 * rgb[..., 0] + 0.7152 * rgb[..., 1] + 0.0722 * rgb[..., 2]
    lmax = lw.max()
    if op == "linear":
        lmin = lw.min()
        ld = (lw - lmin) / (lmax - lmin)
    elif op == "log":
        ld = torch.log1p(lw) / torch.log1p(lmax)
    elif op == "drago":
        lwa = torch.exp(torch.log(1e-6 + lw).mean())
        l = lw / lwa
        lm = lmax / lwa
        bp = torch.log(torch.tensor(0.85, device=x.device)) / torch.log(torch.tensor(0.5, device=x.device))
        ld = 0.01 * 100 / torch.log10(lm + 1) * torch.log1p(l) / torch.log(2 + 8 * (l / lm).pow(bp))
    elif op == "reinhard":
        lwa = torch.exp(torch.log(1e-6 + lw).mean())
        l = lw * (0.18 / lwa)
        white = lmax * (0.18 / lwa)
        ld = l * (1 + l / (white * white)) / (1 + l)
    elif op == "histeq":
        pos = lw > 0
        ll = torch.log(torch.where(pos, lw, torch.ones_like(lw)))
        lo, hi = ll[pos].min(), ll.max()
        h = torch.histc(ll[pos], bins=bins, min=lo.item(), max=hi.item())
        cdf = torch.cumsum(h, 0) - h
        table = (cdf + 0.5 * h) / h.sum()
        b = ((ll - lo) / (hi - lo) * bins).long().clamp(0, bins - 1)
        ld = torch.where(pos, table[b], torch.zeros_like(lw))
    else:
        raise ValueError(op)
    ratio = torch.where(lw > 0, ld / lw, torch.zeros_like(lw)).unsqueeze(-1)
    out = (srgb(rgb * ratio) * 255 + 0.5).floor().to(torch.uint8)
    if x.shape[-1] == 4:
        a = (x[..., 3:4].float().clamp(0, 1) * 255 + 0.5).floor().to(torch.uint8)
        out = torch.cat([out, a], dim=-1)
    return out


def bench(w, h, fmt, op, runs):
    g = torch.Generator(device="cuda").manual_seed(1)
    c = 4 if fmt == "f16rgba->rgba8" else 3
    dtype = torch.float16 if c == 4 else torch.float32
    inputs = [torch.exp2(torch.rand(h, w, c, device="cuda", generator=g) * 30 - 20).to(dtype) for _ in range(3)]
    for i in range(5):
        tone_map(inputs[i % 3], op)
    times = []
    for i in range(runs):
        e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        e0.record()
        tone_map(inputs[i % 3], op)
        e1.record()
        e1.synchronize()
        times.append(e0.elapsed_time(e1))
    del inputs
    torch.cuda.empty_cache()
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--json", default="")
    ap.add_argument("--runs", type=int, default=30)
    args = ap.parse_args()
    rows = []
    for (w, h) in [(1920, 1080), (3840, 2160), (7680, 4320)]:
        for fmt in ["f16rgba->rgba8", "f32rgb->rgb8"]:
            for op in ["linear", "log", "drago", "reinhard", "histeq"]:
                ms = bench(w, h, fmt, op, args.runs)
                rows.append({"res": f"{w}x{h}", "format": fmt, "op": op, "ms": ms})
                print(f"torch {w}x{h} {fmt:15s} {op:9s} {ms:9.3f} ms", flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"torch": torch.__version__, "device": torch.cuda.get_device_name(), "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
