"""tonekit.read -> tonekit.map -> tonekit.write gives the bytes `tonekit map` writes, for every
registered operator on the real images of ../shared/hdr (skipped when the folder is absent).

TONEKIT_PY_IMAGES=N limits the images to the first N in name order (0 or unset: all of them)."""
import os
import unittest

import numpy as np

import tk_support  # noqa: F401
import tonekit
from tk_support import run_cli, shared_images, temp_dir


def images():
    found = shared_images()
    limit = int(os.environ.get("TONEKIT_PY_IMAGES", "0") or 0)
    return found[:limit] if limit > 0 else found


class SameBytesAsTheCli(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.images = images()

    def setUp(self):
        if not self.images:
            self.skipTest(f"no real HDR images in {tk_support.SHARED_HDR}")

    def test_every_operator_on_the_real_images(self):
        d = temp_dir(self)
        decoded = {path: tonekit.read(path) for path in self.images}
        for o in tonekit.operators():
            cli_dir = os.path.join(d, "cli-" + o.id)
            # One batch per operator (the CLI's own pipeline), on the CPU as the module's map here.
            run_cli("map", *self.images, "-o", os.path.join(cli_dir, "{name}.png"), "--op", o.id, "--backend", "cpu")
            for path in self.images:
                name = os.path.splitext(os.path.basename(path))[0]
                with self.subTest(op=o.id, image=name):
                    out = os.path.join(d, f"py-{o.id}-{name}.png")
                    tonekit.write(out, tonekit.map(decoded[path], o.id, "cpu"))
                    expected = open(os.path.join(cli_dir, name + ".png"), "rb").read()
                    self.assertEqual(open(out, "rb").read(), expected)
                    os.remove(out)

    def test_non_default_parameters_and_float_outputs(self):
        d = temp_dir(self)
        path = self.images[len(self.images) // 2]
        hdr = tonekit.read(path)
        for o in tonekit.operators():
            own = [p for p in o.params if not p.common and not p.integer and p.max > p.min]
            settings = {p.name: p.min + 0.25 * (p.max - p.min) for p in own[:2]}
            settings["saturation"] = 0.7
            flags = [a for n, v in settings.items() for a in ("--set", f"{n}={v!r}")]
            for ext, bits, dtype in ((".png", 16, "uint16"), (".exr", 32, "float32")):
                with self.subTest(op=o.id, settings=settings, out=ext):
                    cli_out = os.path.join(d, f"cli-{o.id}{ext}")
                    run_cli("map", path, cli_out, "--op", o.id, "--backend", "cpu", "--bits", bits, *flags)
                    mapped = tonekit.map(hdr, o.id, "cpu", dtype=dtype, **settings)
                    if ext == ".exr":
                        np.testing.assert_array_equal(mapped, tonekit.read(cli_out))
                    else:
                        py_out = os.path.join(d, f"py-{o.id}{ext}")
                        tonekit.write(py_out, mapped)
                        self.assertEqual(open(py_out, "rb").read(), open(cli_out, "rb").read())


if __name__ == "__main__":
    unittest.main()
