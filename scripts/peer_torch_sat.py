#!/usr/bin/env python3
"""PyTorch peer of reinhard-sat (docs/performance.md, local row): reinhard-sat as a PyTorch user
writes it: float64 cumsum table, 8 replicated-edge box means by slicing, the scale search with
torch.where, Reinhard's local curve, sRGB and 8-bit. Median of 20 runs per size, on the GPU, as
CSV rows `torch,reinhard-sat cumsum,W,H,MS,0` beside tonekit_local_bench's.
  python3 scripts/peer_torch_sat.py"""
import torch, torch.nn.functional as F
def frame(x, key=0.18, phi=8.0, eps=0.025):
    r, g, b = x[0].float(), x[1].float(), x[2].float()
    lw = (0.2126 * r + 0.7152 * g + 0.0722 * b).clamp_min(0)
    lavg = torch.exp(torch.log(1e-6 + lw).mean())
    lum = key / lavg * lw
    widths = [1, 3, 5, 7, 11, 17, 25, 39]
    p = F.pad(lw[None, None].double(), (19, 19, 19, 19), mode='replicate')[0, 0]
    t = F.pad(p.cumsum(0).cumsum(1), (1, 0, 1, 0))
    H, W = lw.shape
    def box(wd):
        o = 19 - wd // 2
        s = t[o + wd:o + wd + H, o + wd:o + wd + W] - t[o:o + H, o + wd:o + wd + W] - t[o + wd:o + wd + H, o:o + W] + t[o:o + H, o:o + W]
        return (s / (wd * wd) * (key / lavg)).float()
    centre = lum.clone(); active = torch.ones_like(lum, dtype=torch.bool)
    for i in range(7):
        sur = box(widths[i + 1]); off = 2 ** phi * key / widths[i] ** 2
        keep = active & ((centre - sur).abs() < eps * (off + centre))
        centre = torch.where(keep, sur, centre); active = keep
    ld = lum / (1 + centre)
    rgb = torch.stack([r, g, b]) / lw.clamp_min(1e-30) * ld
    v = rgb.clamp(0, 1); v = torch.where(v <= 0.0031308, 12.92 * v, 1.055 * v.pow(1 / 2.4) - 0.055)
    return (v * 255 + 0.5).to(torch.uint8)
for (w, h) in [(1920, 1080), (3840, 2160), (7680, 4320)]:
    xs = [torch.rand(4, h, w, device='cuda', dtype=torch.float16) * 4 for _ in range(3)]
    for i in range(3): frame(xs[i % 3])
    torch.cuda.synchronize(); ts = []
    for i in range(20):
        a = torch.cuda.Event(enable_timing=True); b = torch.cuda.Event(enable_timing=True)
        a.record(); frame(xs[i % 3]); b.record(); b.synchronize(); ts.append(a.elapsed_time(b))
    ts.sort(); print(f"torch,reinhard-sat cumsum,{w},{h},{ts[len(ts)//2]:.4f},0")
