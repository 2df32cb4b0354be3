#!/usr/bin/env python3
"""The PyTorch peer of the video path (issue 14 item 5): 4K P010 PQ BT.2020 -> NV12 and -> RGBA8
with global Reinhard, written the obvious way in PyTorch on the GPU: 10-bit codes from the high
bits, chroma upsampled (bilinear between co-sited samples via interpolate), Y'CbCr (BT.2020 NCL,
limited) -> R'G'B', PQ EOTF / 203 cd/m^2, BT.2020 -> BT.709 (negatives clipped), log-average key,
L / (1 + L) with the white point, colour ratio, BT.709 OETF, then R'G'B' -> Y'CbCr BT.709 limited
with 2x2 chroma means (NV12) or sRGB RGBA8. Timed with CUDA events: warm-up, median of runs,
rotating inputs, in the same device session as tonekit_local_bench --video."""
import statistics

import torch
import torch.nn.functional as F

M2020_709 = [[1.6604910021, -0.5876411388, -0.0728498633],
             [-0.1245504745, 1.1328998971, -0.0083494226],
             [-0.0181507634, -0.1005788980, 1.1187296614]]


def pq_eotf(e):
    m1, m2, c1, c2, c3 = 2610 / 16384, 2523 / 4096 * 128, 3424 / 4096, 2413 / 4096 * 32, 2392 / 4096 * 32
    p = e.clamp(0, 1).pow(1 / m2)
    return 10000 * ((p - c1).clamp_min(0) / (c2 - c3 * p)).pow(1 / m1)


def frame(p010, w, h, nv12, m):
    y = (p010[: w * h].view(h, w) >> 6).float()
    uv = (p010[w * h:].view(h // 2, w // 2, 2) >> 6).float().permute(2, 0, 1).unsqueeze(0)
    uv = F.interpolate(uv, size=(h, w), mode="bilinear", align_corners=True)[0]
    yn, cb, cr = (y - 64) / 876, (uv[0] - 512) / 896, (uv[1] - 512) / 896
    r = yn + 1.4746 * cr
    b = yn + 1.8814 * cb
    g = (yn - 0.2627 * r - 0.0593 * b) / 0.6780
    rgb = torch.stack([r, g, b], -1)
    lin = pq_eotf(rgb) / 203.0
    lin = (lin @ m.T).clamp_min(0)
    lw = 0.2126 * lin[..., 0] + 0.7152 * lin[..., 1] + 0.0722 * lin[..., 2]
    lwa = torch.exp(torch.log(1e-6 + lw).mean())
    l = lw * (0.18 / lwa)
    white = lw.max() * (0.18 / lwa)
    ld = l * (1 + l / (white * white)) / (1 + l)
    out = (lin * (ld / lw.clamp_min(1e-12)).unsqueeze(-1)).clamp(0, 1)
    if not nv12:
        s = torch.where(out <= 0.0031308, 12.92 * out, 1.055 * out.pow(1 / 2.4) - 0.055)
        return torch.cat([(s * 255).round().to(torch.uint8), torch.full_like(s[..., :1], 255, dtype=torch.uint8)], -1)
    v = torch.where(out < 0.018, 4.5 * out, 1.099 * out.pow(0.45) - 0.099)
    yy = 0.2126 * v[..., 0] + 0.7152 * v[..., 1] + 0.0722 * v[..., 2]
    cb = (v[..., 2] - yy) / 1.8556
    cr = (v[..., 0] - yy) / 1.5748
    cbm = F.avg_pool2d(cb[None, None], 2)[0, 0]
    crm = F.avg_pool2d(cr[None, None], 2)[0, 0]
    ycode = (16 + 219 * yy).round().clamp(16, 235).to(torch.uint8)
    c = torch.stack([(128 + 224 * cbm).round(), (128 + 224 * crm).round()], -1).clamp(16, 240).to(torch.uint8)
    return torch.cat([ycode.flatten(), c.flatten()])


def main():
    w, h = 3840, 2160
    dev = "cuda"
    m = torch.tensor(M2020_709, device=dev)
    frames = []
    for i in range(4):
        g = torch.Generator(device=dev).manual_seed(i)
        codes = torch.randint(64, 941, (w * h * 3 // 2,), device=dev, generator=g, dtype=torch.int32)
        frames.append((codes << 6).to(torch.int32))
    for nv12 in (True, False):
        for i in range(5):
            frame(frames[i % 4], w, h, nv12, m)
        torch.cuda.synchronize()
        times = []
        for i in range(30):
            a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            a.record()
            frame(frames[i % 4], w, h, nv12, m)
            b.record()
            b.synchronize()
            times.append(a.elapsed_time(b))
        print(f"torch,reinhard p010 pq bt2020 -> {'nv12' if nv12 else 'rgba8'},{w},{h},{statistics.median(times):.4f}")


if __name__ == "__main__":
    main()
