"""tonekit.ToneMapper: temporal adaptation across calls equals `tonekit stream --temporal` frame for
frame, and the state can be read, reset and seeded."""
import os
import unittest

import numpy as np

import tk_support  # noqa: F401
import tonekit
from tk_support import run_cli

FRAMES = 24
FPS = 30


class Sequence(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = temp_dir_for_class(cls)
        # The night drive: headlights, a tunnel exit and a hard cut within 24 frames.
        run_cli("synth", "night-drive", os.path.join(cls.dir, "shot.%04d.exr"), "--frames", FRAMES, "--size", "160x96")
        cls.frames = [tonekit.read(os.path.join(cls.dir, f"shot.{i:04d}.exr")) for i in range(1, FRAMES + 1)]

    def stream(self, out_name, *flags):
        out = os.path.join(self.dir, out_name + ".%04d.png")
        run_cli("stream", os.path.join(self.dir, "shot.%04d.exr"), out, "--backend", "cpu", "--fps", FPS, *flags)
        return [open(out % i, "rb").read() for i in range(1, FRAMES + 1)]

    def png(self, array):
        path = os.path.join(self.dir, "py.png")
        tonekit.write(path, array)
        return open(path, "rb").read()

    def test_frames_equal_tonekit_stream_temporal(self):
        for op, temporal_flags, temporal in (("reinhard", [], {}),
                                             ("drago", ["--temporal-set", "tau_darken=0.8"], {"tau_darken": 0.8})):
            expected = self.stream(f"cli-{op}", "--op", op, "--temporal", *temporal_flags)
            tm = tonekit.ToneMapper(op, "cpu", temporal_params=temporal)
            for i, frame in enumerate(self.frames):
                with self.subTest(op=op, frame=i + 1):
                    self.assertEqual(self.png(tm.map(frame, dt=1 / FPS)), expected[i])
            self.assertEqual(tm.state["cuts"] >= 1, True)  # the script's hard cut was seen

    def test_state_changes_the_picture(self):
        tm = tonekit.ToneMapper("reinhard", "cpu")
        adapted = [tm.map(f, dt=1 / FPS) for f in self.frames]
        alone = [tonekit.map(f, "reinhard", "cpu") for f in self.frames]
        np.testing.assert_array_equal(adapted[0], alone[0])  # the first frame seeds the state
        self.assertTrue(any(not np.array_equal(a, b) for a, b in zip(adapted, alone)))

    def test_reset_and_seed(self):
        tm = tonekit.ToneMapper("reinhard", "cpu")
        first = tm.map(self.frames[0], dt=1 / FPS)
        for f in self.frames[1:10]:
            tm.map(f, dt=1 / FPS)
        state = tm.state
        self.assertTrue(state["seeded"])
        self.assertGreaterEqual(state["frames"], 1)
        rest = [tm.map(f, dt=1 / FPS) for f in self.frames[10:]]
        # A new mapper seeded with the state continues exactly as the first did.
        other = tonekit.ToneMapper("reinhard", "cpu")
        other.seed(state)
        self.assertEqual(other.state["log_key"], state["log_key"])
        for a, f in zip(rest, self.frames[10:]):
            np.testing.assert_array_equal(other.map(f, dt=1 / FPS), a)
        tm.reset()
        self.assertFalse(tm.state["seeded"])
        np.testing.assert_array_equal(tm.map(self.frames[0], dt=1 / FPS), first)

    def test_set_params_keeps_the_state(self):
        tm = tonekit.ToneMapper("reinhard", "cpu")
        for f in self.frames[:5]:
            tm.map(f, dt=1 / FPS)
        before = tm.state
        tm.set_params(key=0.3)
        self.assertEqual(tm.state, before)
        brighter = tm.map(self.frames[5], dt=1 / FPS)
        tm2 = tonekit.ToneMapper("reinhard", "cpu")
        for f in self.frames[:5]:
            tm2.map(f, dt=1 / FPS)
        self.assertGreater(brighter.mean(), tm2.map(self.frames[5], dt=1 / FPS).mean())

    def test_bad_arguments(self):
        with self.assertRaises(tonekit.InvalidArgument):
            tonekit.ToneMapper("reinhard", temporal_params={"tau_nope": 1})
        with self.assertRaises(tonekit.InvalidArgument):
            tonekit.ToneMapper("reinhard", temporal_params={"cut_low_stops": 6, "cut_high_stops": 4})
        with self.assertRaises(tonekit.InvalidArgument):
            tonekit.ToneMapper("nope")
        tm = tonekit.ToneMapper("reinhard", "cpu")
        with self.assertRaises(tonekit.InvalidArgument) as ctx:
            tm.map(self.frames[0], dt=-1)
        self.assertIn("dt", str(ctx.exception))
        with self.assertRaises(tonekit.InvalidArgument):
            tm.set_params(key=9)


def temp_dir_for_class(cls):
    import tempfile
    d = tempfile.TemporaryDirectory(prefix="tonekit-py-seq-")
    cls.addClassCleanup(d.cleanup)
    return d.name


if __name__ == "__main__":
    unittest.main()
