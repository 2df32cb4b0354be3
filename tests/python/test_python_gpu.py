"""tonekit on CUDA arrays (ctest label gpu; scripts/python_gpu_check.sh runs it on the GPU host):
PyTorch and CuPy tensors mapped where they lie on the caller's stream, results on the same
device, against the CPU reference with the project's tolerance (docs/conventions.md, rule 22:
>= 99.99 % of 8-bit samples equal, none more than 1 apart). Skips, saying why, without a GPU,
without CUDA in the build, or without PyTorch / CuPy."""
import unittest

import numpy as np

import tk_support  # noqa: F401
import tonekit

try:
    import torch
    HAVE_TORCH = torch.cuda.is_available()
except ImportError:
    torch, HAVE_TORCH = None, False
try:
    import cupy
    HAVE_CUPY = cupy.cuda.runtime.getDeviceCount() > 0
except Exception:  # ImportError, or CuPy without a driver
    cupy, HAVE_CUPY = None, False

GPU = tonekit.cuda_available()
WHY = "no CUDA device, or this build of tonekit has no CUDA backend"


def scene(w, h, channels, dtype=np.float32):
    img = tonekit.synth("night-drive", w, h)
    if channels == 4:
        img = np.concatenate([img, np.linspace(0, 1, w * h, dtype=np.float32).reshape(h, w, 1)], axis=2)
    return np.ascontiguousarray(img.astype(dtype))


def assert_close_to_cpu(case, got, host_input, op="reinhard", **params):
    """8-bit output within the GPU-vs-CPU tolerance of the CPU reference on the same pixels:
    >= 99.99 % of samples equal (99.9 % for histeq); none more than 1 apart for global operators, and for local ones
    at most 0.01 % (their rare ties at the epsilon threshold, tests/gpu's local tests explain
    them)."""
    expected = tonekit.map(np.ascontiguousarray(host_input), op, "cpu", **params)
    got = np.asarray(got)
    case.assertEqual(got.shape, expected.shape)
    diff = np.abs(got.astype(np.int32) - expected.astype(np.int32))
    if tonekit.operator(op).locality == "global":
        case.assertLessEqual(int(diff.max()), 1, f"{op}: a sample more than one code from the CPU")
    else:
        case.assertLessEqual(float((diff > 1).mean()), 1e-4, f"{op}: too many samples more than one code apart")
    # histeq: a flat region of the synthetic scene shares one value, so a bin edge an ulp away on
    # the GPU moves all of it by a code (tests/gpu allows histeq 6 codes): 99.9 % equal there.
    share = 0.999 if op == "histeq" else 0.9999
    case.assertGreaterEqual(float((diff == 0).mean()), share, f"{op}: fewer than {share:.2%} equal")


@unittest.skipUnless(GPU, WHY)
@unittest.skipUnless(HAVE_TORCH, "PyTorch with CUDA is not installed")
class GpuTorch(unittest.TestCase):
    def test_every_operator_half_rgba_and_float_rgb(self):
        for o in tonekit.operators():
            for channels, dtype in ((4, np.float16), (3, np.float32)):
                host = scene(333, 201, channels, dtype)
                x = torch.from_numpy(host).cuda()
                with self.subTest(op=o.id, channels=channels):
                    out = tonekit.map(x, o.id)
                    self.assertIsInstance(out, torch.Tensor)
                    self.assertEqual(out.device, x.device)
                    self.assertEqual(out.dtype, torch.uint8)
                    torch.cuda.synchronize()
                    assert_close_to_cpu(self, out.cpu().numpy(), host, o.id)

    def test_output_dtypes(self):
        host = scene(256, 160, 4, np.float16)
        x = torch.from_numpy(host).cuda()
        for dtype in ("uint8", "uint16", "float16", "float32"):
            with self.subTest(dtype=dtype):
                out = tonekit.map(x, dtype=dtype, dither=0)
                self.assertEqual(out.dtype, getattr(torch, dtype))
                ref = tonekit.map(host, "reinhard", "cpu", dtype=dtype, dither=0)
                np.testing.assert_allclose(out.cpu().numpy().astype(np.float64), ref.astype(np.float64),
                                           rtol=1e-3, atol=1.0 if dtype.startswith("uint") else 1e-3)

    def test_zero_copy_in_and_strided_rows(self):
        host = scene(300, 200, 4, np.float16)
        big = torch.zeros((220, 340, 4), dtype=torch.float16, device="cuda")
        big[7:207, 11:311] = torch.from_numpy(host).cuda()
        crop = big[7:207, 11:311]  # rows 340 pixels apart: read where it lies
        torch.cuda.synchronize()
        before = torch.cuda.memory_allocated()
        out = tonekit.map(crop)
        torch.cuda.synchronize()
        grown = torch.cuda.memory_allocated() - before
        out_bytes = out.numel() * out.element_size()
        self.assertLess(grown, out_bytes + 4096, "only the output was allocated (no copy of the input)")
        np.testing.assert_array_equal(out.cpu().numpy(), tonekit.map(torch.from_numpy(host).cuda()).cpu().numpy())
        # Pixels not packed (every other column): made contiguous first, same result.
        wide = torch.zeros((200, 600, 4), dtype=torch.float16, device="cuda")
        wide[:, ::2] = torch.from_numpy(host).cuda()
        np.testing.assert_array_equal(tonekit.map(wide[:, ::2]).cpu().numpy(), out.cpu().numpy())

    def test_stream_ordering_on_the_callers_stream(self):
        host = scene(1920, 1080, 4, np.float16)
        ref = tonekit.map(torch.from_numpy(host).cuda(), dither=0)
        src = torch.from_numpy(host).cuda()
        x = torch.full_like(src, float("nan"))
        torch.cuda.synchronize()
        s = torch.cuda.Stream()
        with torch.cuda.stream(s):
            # A slow producer on s: if the map ran on another stream it would read the NaNs.
            torch.cuda._sleep(50_000_000)
            x.copy_(src)
            out = tonekit.map(x, dither=0)
            check = out.float().sum()  # a consumer on s after the map
        s.synchronize()
        np.testing.assert_array_equal(out.cpu().numpy(), ref.cpu().numpy())
        self.assertEqual(float(check), float(ref.float().sum()))
        # An explicit stream= wins over the current one.
        y = torch.full_like(src, float("nan"))
        torch.cuda.synchronize()
        with torch.cuda.stream(s):
            torch.cuda._sleep(50_000_000)
            y.copy_(src)
        out2 = tonekit.map(y, dither=0, stream=s)
        s.synchronize()
        np.testing.assert_array_equal(out2.cpu().numpy(), ref.cpu().numpy())

    def test_dlpack_producer_gets_a_device_buffer_back(self):
        host = scene(320, 180, 4, np.float16)
        x = torch.from_numpy(host).cuda()

        class OnlyDLPack:  # a producer PyTorch and CuPy do not know
            def __dlpack__(self, stream=None):
                return x.__dlpack__(stream=stream)

            def __dlpack_device__(self):
                return x.__dlpack_device__()

        out = tonekit.map(OnlyDLPack())
        self.assertIsInstance(out, tonekit.DeviceBuffer)
        self.assertEqual(out.__dlpack_device__(), (2, x.device.index))
        as_torch = torch.from_dlpack(out)
        self.assertEqual(as_torch.device, x.device)
        np.testing.assert_array_equal(as_torch.cpu().numpy(), tonekit.map(x).cpu().numpy())
        via_cai = torch.as_tensor(out, device="cuda")  # __cuda_array_interface__
        np.testing.assert_array_equal(via_cai.cpu().numpy(), as_torch.cpu().numpy())

    def test_sequence_on_the_device_follows_the_cpu_state(self):
        frames = [tonekit.synth("night-drive", 256, 144) * np.float32(s) for s in (1, 1, 8, 8, 8, 0.1, 0.1)]
        frames = [np.concatenate([f, np.ones_like(f[..., :1])], axis=2).astype(np.float16) for f in frames]
        cpu = tonekit.ToneMapper("reinhard", "cpu", dither=0)
        gpu = tonekit.ToneMapper("reinhard", dither=0)
        for i, f in enumerate(frames):
            expected = cpu.map(f, dt=1 / 30)
            got = gpu.map(torch.from_numpy(f).cuda(), dt=1 / 30)
            with self.subTest(frame=i):
                diff = np.abs(got.cpu().numpy().astype(int) - expected.astype(int))
                self.assertLessEqual(int(diff.max()), 1)
        self.assertAlmostEqual(gpu.state["log_key"], cpu.state["log_key"], places=4)
        self.assertEqual(gpu.state["cuts"], cpu.state["cuts"])
        # The state moves with the frames between host and device.
        nxt = frames[0]
        a = gpu.map(nxt, dt=1 / 30)
        b = cpu.map(nxt, dt=1 / 30)
        self.assertLessEqual(int(np.abs(a.astype(int) - b.astype(int)).max()), 1)
        gpu.reset()
        self.assertFalse(gpu.state["seeded"])

    def test_device_errors(self):
        rgb_half = torch.zeros((16, 16, 3), dtype=torch.float16, device="cuda")
        with self.assertRaises(tonekit.InvalidArgument) as ctx:
            tonekit.map(rgb_half)
        self.assertIn("float16 on the GPU needs 4 channels", str(ctx.exception))
        with self.assertRaises(tonekit.InvalidArgument):
            tonekit.map(torch.zeros((16, 16, 4), dtype=torch.float64, device="cuda"))
        with self.assertRaises(tonekit.InvalidArgument):
            tonekit.map(torch.zeros((16, 16), dtype=torch.float32, device="cuda"))
        with self.assertRaises(tonekit.InvalidArgument):
            tonekit.map(torch.zeros((16, 16, 4), dtype=torch.float16, device="cuda"), op="nope")


@unittest.skipUnless(GPU, WHY)
@unittest.skipUnless(HAVE_CUPY, "CuPy is not installed")
class GpuCupy(unittest.TestCase):
    def test_cupy_in_and_out(self):
        for channels, dtype in ((4, np.float16), (3, np.float32)):
            host = scene(301, 177, channels, dtype)
            x = cupy.asarray(host)
            out = tonekit.map(x, "drago")
            self.assertIsInstance(out, cupy.ndarray)
            self.assertEqual(out.device.id, x.device.id)
            assert_close_to_cpu(self, cupy.asnumpy(out), host, "drago")

    def test_cupy_stream_ordering(self):
        host = scene(1920, 1080, 4, np.float16)
        ref = cupy.asnumpy(tonekit.map(cupy.asarray(host), dither=0))
        src = cupy.asarray(host)
        x = cupy.full_like(src, np.nan)
        cupy.cuda.Device().synchronize()
        s = cupy.cuda.Stream(non_blocking=True)
        with s:
            for _ in range(200):  # slow producer work queued on s before the real pixels land
                x *= 1
            x[...] = src
            out = tonekit.map(x, dither=0)
        s.synchronize()
        np.testing.assert_array_equal(cupy.asnumpy(out), ref)

    def test_cuda_array_interface_producer(self):
        host = scene(200, 120, 4, np.float16)
        x = cupy.asarray(host)

        class OnlyCai:
            __cuda_array_interface__ = x.__cuda_array_interface__

        out = tonekit.map(OnlyCai())
        self.assertIsInstance(out, tonekit.DeviceBuffer)
        np.testing.assert_array_equal(cupy.asnumpy(cupy.asarray(out)), cupy.asnumpy(tonekit.map(x)))


class SkipsSayWhy(unittest.TestCase):
    def test_reason(self):
        if not GPU:
            print(f"tonekit GPU tests skipped: {WHY}")
        elif not HAVE_TORCH and not HAVE_CUPY:
            print("tonekit GPU tests skipped: neither PyTorch with CUDA nor CuPy is installed")


if __name__ == "__main__":
    unittest.main()
