"""tonekit's Python API on the CPU: every input dtype, layout and stride against the same pixels
packed, the zero-copy rule, outputs, errors (the library's one-line messages, as the CLI prints
them), the registry, files, quality, and the GIL released while mapping."""
import os
import threading
import time
import unittest

import numpy as np

import tk_support  # noqa: F401  (sets sys.path for a build's module)
import tonekit
from tk_support import cli_error, run_cli, temp_dir


def scene(w=97, h=61, channels=3, seed=0):
    """A synthetic HDR scene with an alpha channel when asked (alpha varies, so a lost alpha shows)."""
    img = tonekit.synth("night-drive", w, h)
    if channels == 4:
        alpha = np.random.default_rng(seed).random((h, w, 1), dtype=np.float32)
        img = np.concatenate([img, alpha], axis=2)
    return img


class Layouts(unittest.TestCase):
    def layouts(self, packed):
        """(name, array holding packed's pixels, read where it lies?) for every layout NumPy makes."""
        h, w, c = packed.shape
        big = np.zeros((h + 7, w + 9, c), packed.dtype)
        big[3:3 + h, 5:5 + w] = packed
        wide = np.zeros((h, 2 * w, c), packed.dtype)
        wide[:, ::2] = packed
        planar = np.ascontiguousarray(packed.transpose(2, 0, 1))
        return [
            ("c-contiguous", packed, True),
            ("crop of a larger image (row stride)", big[3:3 + h, 5:5 + w], True),
            ("every other column", wide[:, ::2], False),
            ("fortran order", np.asfortranarray(packed), False),
            ("planar transposed view", planar.transpose(1, 2, 0), False),
            ("rows reversed twice", packed[::-1][::-1], True),
            ("negative row stride", np.ascontiguousarray(packed[::-1])[::-1], False),
        ]

    def test_every_dtype_layout_and_output_matches_the_packed_float32_map(self):
        for channels in (3, 4):
            base = scene(channels=channels)
            for in_dtype in (np.float32, np.float16):
                # float16 inputs hold half values; the reference maps the same values as float32.
                packed = np.ascontiguousarray(base.astype(in_dtype))
                reference_in = packed.astype(np.float32)
                for out_dtype in ("uint8", "uint16", "float16", "float32"):
                    expected = tonekit.map(reference_in, "reinhard", "cpu", dtype=out_dtype, key=0.2)
                    self.assertEqual(expected.dtype, np.dtype(out_dtype))
                    self.assertEqual(expected.shape, packed.shape)
                    for name, array, in_place in self.layouts(packed):
                        with self.subTest(channels=channels, dtype=in_dtype.__name__, out=out_dtype, layout=name):
                            np.testing.assert_array_equal(array, packed)
                            got = tonekit.map(array, "reinhard", "cpu", dtype=out_dtype, key=0.2)
                            self.assertTrue(got.flags.c_contiguous)
                            np.testing.assert_array_equal(got.view(np.uint8), expected.view(np.uint8))

    def test_packed_layouts_are_read_in_place_others_copied_once(self):
        for channels in (3, 4):
            for in_dtype in (np.float32, np.float16):
                packed = np.ascontiguousarray(scene(channels=channels).astype(in_dtype))
                for name, array, in_place in self.layouts(packed):
                    # The host API reads half as RGBA only: half RGB is widened (one copy).
                    expect_copy = not in_place or (in_dtype == np.float16 and channels == 3)
                    with self.subTest(channels=channels, dtype=in_dtype.__name__, layout=name):
                        self.assertEqual(tonekit._native._input_is_copied(array), expect_copy)

    def test_output_owns_its_buffer_and_keeps_it_alive(self):
        out = tonekit.map(scene(), "drago", "cpu")
        base = out.base
        self.assertIsNotNone(base)  # the library's buffer, handed over without a copy
        first = out.copy()
        del base
        for _ in range(3):
            tonekit.map(scene(), "log", "cpu")
        np.testing.assert_array_equal(out, first)

    def test_channels_choose_rgb_or_rgba_output(self):
        img4 = scene(channels=4)
        rgba = tonekit.map(img4, "reinhard", "cpu")
        rgb = tonekit.map(img4, "reinhard", "cpu", channels=3)
        self.assertEqual(rgba.shape[2], 4)
        self.assertEqual(rgb.shape[2], 3)
        np.testing.assert_array_equal(rgba[..., :3], rgb)
        self.assertGreater(len(np.unique(rgba[..., 3])), 10)  # alpha carried from the input

    def test_parameters_change_the_output_and_types_are_accepted(self):
        img = scene()
        a = tonekit.map(img, "reinhard", "cpu", key=0.09)
        b = tonekit.map(img, "reinhard", "cpu", key=0.36)
        self.assertGreater(b.mean(), a.mean())
        np.testing.assert_array_equal(tonekit.map(img, "reinhard", "cpu", dither=False),
                                      tonekit.map(img, "reinhard", "cpu", dither=0))
        np.testing.assert_array_equal(tonekit.map(img, "histeq", "cpu", bins=512),
                                      tonekit.map(img, "histeq", "cpu", bins="512"))
        np.testing.assert_array_equal(tonekit.map(img, dtype=np.uint16, backend="cpu"),
                                      tonekit.map(img, dtype="uint16", backend="cpu"))

    def test_dlpack_and_array_like_host_inputs(self):
        img = scene()
        expected = tonekit.map(img, "reinhard", "cpu")

        class OnlyDLPack:
            def __init__(self, a):
                self.a = a

            def __dlpack__(self, stream=None):
                return self.a.__dlpack__()

            def __dlpack_device__(self):
                return self.a.__dlpack_device__()

        if hasattr(img, "__dlpack__"):
            np.testing.assert_array_equal(tonekit.map(OnlyDLPack(img), "reinhard", "cpu"), expected)
        # Anything else goes through numpy.asarray: nested lists become float64, which is refused.
        with self.assertRaises(tonekit.InvalidArgument):
            tonekit.map(img.tolist(), "reinhard", "cpu")

    def test_torch_cpu_tensor_in_and_out(self):
        try:
            import torch
        except ImportError:
            self.skipTest("PyTorch is not installed")
        img = scene()
        out = tonekit.map(torch.from_numpy(img), "reinhard", "cpu")
        self.assertIsInstance(out, torch.Tensor)
        np.testing.assert_array_equal(out.numpy(), tonekit.map(img, "reinhard", "cpu"))


class Errors(unittest.TestCase):
    def assertOneLine(self, exc_type, fn, contains=None):
        with self.assertRaises(exc_type) as ctx:
            fn()
        message = str(ctx.exception)
        self.assertNotIn("\n", message)
        self.assertTrue(message)
        if contains:
            self.assertIn(contains, message)
        return message

    def test_bad_shapes_and_dtypes(self):
        img = scene()
        for bad in (img[..., 0], img[..., :2], np.zeros((4, 4, 5), np.float32), np.zeros((0, 4, 3), np.float32),
                    np.zeros((2, 3, 4, 3), np.float32)):
            with self.subTest(shape=bad.shape):
                self.assertOneLine(tonekit.InvalidArgument, lambda: tonekit.map(bad), "H x W x 3 or H x W x 4")
        for dt in (np.float64, np.uint8, np.int32, np.uint16):
            with self.subTest(dtype=dt.__name__):
                self.assertOneLine(tonekit.InvalidArgument, lambda: tonekit.map(img.astype(dt)), "float32 or float16")
        self.assertOneLine(tonekit.InvalidArgument, lambda: tonekit.map(img, dtype="int8"), "output dtype")
        self.assertOneLine(tonekit.InvalidArgument, lambda: tonekit.map(img, channels=5), "channels")
        self.assertOneLine(tonekit.InvalidArgument, lambda: tonekit.map("not an image"))

    def test_registry_errors_are_the_clis_messages(self):
        d = temp_dir(self)
        path = os.path.join(d, "in.exr")
        tonekit.write(path, scene())
        out = os.path.join(d, "out.png")
        cases = [
            ({"op": "nope"}, ["--op", "nope"]),
            ({"op": "reinhard", "foo": 1}, ["--set", "foo=1"]),
            ({"op": "reinhard", "key": 7}, ["--set", "key=7"]),
            ({"op": "reinhard", "key": "abc"}, ["--set", "key=abc"]),
            ({"op": "histeq", "bins": 2.5}, ["--op", "histeq", "--set", "bins=2.5"]),
            ({"op": "reinhard", "backend": "gpu"}, ["--backend", "gpu"]),
        ]
        for kwargs, flags in cases:
            with self.subTest(flags=flags):
                expected = cli_error("map", path, out, *flags)
                message = self.assertOneLine(tonekit.InvalidArgument, lambda: tonekit.map(scene(), **kwargs))
                self.assertEqual(message, expected)
                self.assertIsInstance(tonekit.InvalidArgument(message), ValueError)

    def test_cuda_missing_is_no_device(self):
        if tonekit.cuda_available():
            self.skipTest("a GPU is present")
        message = self.assertOneLine(tonekit.NoDevice, lambda: tonekit.map(scene(), backend="cuda"))
        self.assertIsInstance(tonekit.NoDevice(message), RuntimeError)
        self.assertEqual(tonekit.backend_for("auto"), "cpu")

    def test_gpu_arrays_without_a_gpu_are_no_device(self):
        if tonekit.cuda_available():
            self.skipTest("a GPU is present")
        host = np.zeros((4, 4, 4), np.float16)

        class CudaArray:  # what CuPy or Numba would hand over
            __cuda_array_interface__ = {"shape": (4, 4, 4), "typestr": "<f2", "data": (host.ctypes.data, False),
                                        "version": 3, "strides": None, "stream": 1}

        for call in (lambda: tonekit.map(CudaArray()), lambda: tonekit.ToneMapper().map(CudaArray())):
            message = self.assertOneLine(tonekit.NoDevice, call, "no CUDA device")
            self.assertTrue(message.startswith(("tonekit.map:", "ToneMapper.map:")), message)

    def test_file_errors(self):
        d = temp_dir(self)
        garbage = os.path.join(d, "garbage.exr")
        with open(garbage, "wb") as f:
            f.write(b"not an image at all")
        missing = os.path.join(d, "missing.exr")
        for path in (garbage, missing):
            with self.subTest(path=path):
                message = self.assertOneLine(tonekit.BadInput, lambda: tonekit.read(path), path)
                self.assertEqual(message, cli_error("map", path, os.path.join(d, "o.png")))
        self.assertOneLine(tonekit.InvalidArgument, lambda: tonekit.write(os.path.join(d, "x.bmp"),
                                                                          np.zeros((4, 4, 3), np.uint8)), "x.bmp")
        self.assertOneLine(tonekit.IOFailure, lambda: tonekit.write(os.path.join(d, "no", "such", "x.png"),
                                                                    np.zeros((4, 4, 3), np.uint8)))
        self.assertOneLine(tonekit.InvalidArgument, lambda: tonekit.write(os.path.join(d, "x.png"), scene()))
        self.assertOneLine(tonekit.InvalidArgument, lambda: tonekit.write(os.path.join(d, "x.jpg"),
                                                                          np.zeros((4, 4, 3), np.uint16)))
        self.assertEqual(sorted(os.listdir(d)), ["garbage.exr"])  # a failed write leaves no file

    def test_quality_rejects_small_or_mismatched_pairs(self):
        small = scene(64, 64)
        self.assertOneLine(tonekit.InvalidArgument, lambda: tonekit.quality(small, tonekit.map(small)))
        big = scene(200, 180)
        self.assertOneLine(tonekit.InvalidArgument, lambda: tonekit.quality(big, tonekit.map(scene(180, 200))))


class Registry(unittest.TestCase):
    def test_operators_are_the_registry_tonekit_ops_prints(self):
        ops = tonekit.operators()
        printed = run_cli("ops").stdout
        self.assertTrue(ops)
        for o in ops:
            with self.subTest(op=o.id):
                self.assertIn(o.id, printed)
                self.assertIn(o.locality, ("global", "local"))
                self.assertTrue(o.citation and o.description and o.title)
                for p in o.params:
                    self.assertLessEqual(p.min, p.default)
                    self.assertLessEqual(p.default, p.max)
                    self.assertIn(p.name, printed)
                self.assertEqual(tonekit.operator(o.id), o)
                # Each parameter's range as the boundary enforces it.
                own = [p for p in o.params if not p.common and p.max > p.min]
                for p in own[:2]:
                    tonekit._native.validate(o.id, {p.name: p.max})
                    with self.assertRaises(tonekit.InvalidArgument):
                        tonekit._native.validate(o.id, {p.name: p.max + abs(p.max) + 1})

    def test_docstrings_and_stubs_come_from_the_registry(self):
        stub = os.path.join(os.path.dirname(tonekit.__file__), "__init__.pyi")
        self.assertTrue(os.path.exists(stub), "the build generates __init__.pyi")
        text = open(stub).read()
        for o in tonekit.operators():
            self.assertIn(o.id, tonekit.map.__doc__)
            self.assertIn(o.id, tonekit.ToneMapper.__doc__)
            self.assertIn(repr(o.id), text)
            for p in o.params:
                self.assertIn(f"{p.name}: float | None", text)
        self.assertTrue(os.path.exists(os.path.join(os.path.dirname(tonekit.__file__), "py.typed")))


class Files(unittest.TestCase):
    def test_float_files_round_trip_through_the_clis_codecs(self):
        d = temp_dir(self)
        img = scene(channels=4)
        tonekit.write(os.path.join(d, "a.exr"), img, bits=32)
        np.testing.assert_array_equal(tonekit.read(os.path.join(d, "a.exr")), img)
        tonekit.write(os.path.join(d, "h.exr"), img)  # half by default
        np.testing.assert_array_equal(tonekit.read(os.path.join(d, "h.exr")), img.astype(np.float16).astype(np.float32))
        tonekit.write(os.path.join(d, "a.pfm"), img[..., :3])
        np.testing.assert_array_equal(tonekit.read(os.path.join(d, "a.pfm")), img[..., :3])
        tonekit.write(os.path.join(d, "a.hdr"), img[..., :3])
        back = tonekit.read(os.path.join(d, "a.hdr"))
        np.testing.assert_allclose(back, img[..., :3], rtol=1 / 64, atol=1e-30)  # RGBE: 8-bit mantissa

    def test_written_png_is_the_clis_png(self):
        d = temp_dir(self)
        src = os.path.join(d, "in.exr")
        tonekit.write(src, scene(channels=4))
        for op, bits, name in (("reinhard", 8, "a.png"), ("drago", 16, "b.png"), ("log", 8, "c.jpg")):
            with self.subTest(op=op, bits=bits, out=name):
                cli_out, py_out = os.path.join(d, "cli-" + name), os.path.join(d, "py-" + name)
                run_cli("map", src, cli_out, "--op", op, "--bits", bits, "--backend", "cpu")
                ch = 3 if name.endswith(".jpg") else None
                tonekit.write(py_out, tonekit.map(tonekit.read(src), op, "cpu", dtype="uint16" if bits == 16 else "uint8",
                                                  channels=ch))
                self.assertEqual(open(py_out, "rb").read(), open(cli_out, "rb").read())

    def test_quality_matches_tonekit_quality(self):
        import json
        d = temp_dir(self)
        hdr = scene(240, 200)
        ldr = tonekit.map(hdr, "reinhard", "cpu")
        tonekit.write(os.path.join(d, "h.exr"), hdr, bits=32)
        tonekit.write(os.path.join(d, "l.png"), ldr)
        cli = json.loads(run_cli("quality", os.path.join(d, "h.exr"), os.path.join(d, "l.png"), "--json",
                                 "--backend", "cpu").stdout)
        q = tonekit.quality(hdr, ldr, backend="cpu")
        self.assertEqual(q["backend"], "cpu")
        flat = json.dumps(cli)
        for value in (q["tmqi"]["q"], q["tmqi"]["s"], q["tmqi"]["n"], q["colour"]["delta_e2000_mean"]):
            self.assertTrue(0 <= value < 1e3)
        # The CLI prints the same numbers (its JSON's TMQI Q, somewhere in the object).
        self.assertTrue(any(abs(v - q["tmqi"]["q"]) < 1e-9 for v in _numbers(cli)), flat[:300])
        self.assertTrue(any(abs(v - q["colour"]["delta_e2000_mean"]) < 1e-9 for v in _numbers(cli)), flat[:300])


def _numbers(obj):
    if isinstance(obj, dict):
        for v in obj.values():
            yield from _numbers(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from _numbers(v)
    elif isinstance(obj, (int, float)) and not isinstance(obj, bool):
        yield float(obj)


class Gil(unittest.TestCase):
    def test_the_gil_is_released_while_mapping(self):
        img = tonekit.synth("night-drive", 1920, 1080)
        t0 = time.perf_counter()
        tonekit.map(img, "reinhard-local", "cpu")
        alone = time.perf_counter() - t0
        done = threading.Event()

        def work():
            for _ in range(3):
                tonekit.map(img, "reinhard-local", "cpu")
            done.set()

        worker = threading.Thread(target=work)
        worker.start()
        longest, last = 0.0, time.perf_counter()
        while not done.is_set():  # pure Python: runs only while the mapping thread lets go of the GIL
            now = time.perf_counter()
            longest, last = max(longest, now - last), now
        worker.join()
        # Holding the GIL through a map would stop this loop for a whole map (`alone` seconds);
        # released, the loop only waits for the scheduler and the interpreter's switch interval.
        self.assertLess(longest, 0.5 * alone, f"the loop stalled {longest:.3f} s; one map takes {alone:.3f} s")


if __name__ == "__main__":
    unittest.main()
