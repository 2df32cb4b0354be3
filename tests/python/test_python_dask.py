"""tonekit.dask on a LocalCluster of worker processes on loopback: 200 small files mapped with one
worker killed mid-run; every output present, byte-equal to `tonekit map`, no partial or
temporary file, one output per input and one row per file. Also the per-file failure rule and the
checks made before anything runs. Skipped when dask.distributed is not installed."""
import os
import signal
import subprocess
import sys
import threading
import time
import unittest

import tk_support  # noqa: F401
import tonekit
from tk_support import run_cli

try:
    from distributed import Client, LocalCluster
except ImportError:  # pragma: no cover
    Client = None

FILES = 200


def make_inputs(folder, count):
    """`count` small EXRs: every synthetic scene at a few sizes (different bytes per file)."""
    os.makedirs(folder, exist_ok=True)
    scenes = tonekit.scenes()
    for i in range(count):
        img = tonekit.synth(scenes[i % len(scenes)], 48 + i % 17, 32 + i % 11)
        tonekit.write(os.path.join(folder, f"f{i:03d}.exr"), img)


@unittest.skipIf(Client is None, "dask.distributed is not installed (apt-get install python3-distributed)")
class DaskBatches(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        import tempfile
        cls._tmp = tempfile.TemporaryDirectory(prefix="tonekit-py-dask-")
        cls.dir = cls._tmp.name
        cls.inputs = os.path.join(cls.dir, "in")
        make_inputs(cls.inputs, FILES)
        cls.expected = os.path.join(cls.dir, "cli")
        run_cli("map", cls.inputs, "-o", os.path.join(cls.expected, "{name}.png"), "--backend", "cpu",
                "--set", "key=0.14")
        cls.cluster = LocalCluster(n_workers=3, threads_per_worker=1, processes=True, dashboard_address=None,
                                   host="127.0.0.1")
        cls.client = Client(cls.cluster)

    @classmethod
    def tearDownClass(cls):
        cls.client.close()
        cls.cluster.close()
        cls._tmp.cleanup()

    def assertSameAsCli(self, out_dir, names):
        for name in names:
            self.assertEqual(open(os.path.join(out_dir, name), "rb").read(),
                             open(os.path.join(self.expected, name), "rb").read(), name)

    def test_a_killed_worker_leaves_every_output_whole(self):
        from tonekit.dask import map_files
        out_dir = os.path.join(self.dir, "killed")
        pids = self.client.run(os.getpid)  # worker address -> process id
        victim = sorted(pids.values())[0]
        killed = threading.Event()

        def kill_mid_run():
            # Once a fifth of the outputs exist, SIGKILL a worker (its running task and the
            # tasks queued on it are rescheduled on the others).
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                if os.path.isdir(out_dir) and len(os.listdir(out_dir)) >= FILES // 5:
                    os.kill(victim, signal.SIGKILL)
                    killed.set()
                    return
                time.sleep(0.005)

        killer = threading.Thread(target=kill_mid_run)
        killer.start()
        # _delay keeps each task ~20 ms in flight, so the kill lands while tasks run.
        table = map_files([self.inputs], os.path.join(out_dir, "{name}.png"), client=self.client, backend="cpu",
                          key=0.14, progress=False, _delay=0.02)
        killer.join()
        self.assertTrue(killed.is_set(), "the worker was killed before the batch ended")
        self.assertEqual(len(table), FILES)
        self.assertEqual(table.failed, 0, str(table))
        self.assertEqual(table.written, FILES)
        names = sorted(f"f{i:03d}.png" for i in range(FILES))
        self.assertEqual([os.path.basename(r.output) for r in table], names)  # input order, once each
        self.assertEqual(sorted(os.listdir(out_dir)), names)  # nothing partial, temporary or doubled
        self.assertSameAsCli(out_dir, names)
        self.assertTrue(all(r.backend == "cpu" and r.seconds > 0 for r in table))

    def test_failures_are_reported_per_file_and_the_rest_finish(self):
        from tonekit.dask import map_files
        src = os.path.join(self.dir, "mixed")
        os.makedirs(src, exist_ok=True)
        for i in range(6):
            os.link(os.path.join(self.inputs, f"f{i:03d}.exr"), os.path.join(src, f"f{i:03d}.exr"))
        with open(os.path.join(src, "f003.exr"), "wb") as f:  # replaces the link: a damaged file
            f.write(b"garbage")
        out_dir = os.path.join(self.dir, "mixed-out")
        table = map_files([src], os.path.join(out_dir, "{name}.png"), client=self.client, backend="cpu",
                          key=0.14, progress=False, chunk_size=2)
        self.assertEqual((table.written, table.failed, table.exit_code), (5, 1, 1))
        bad = [r for r in table if r.status != "ok"]
        self.assertEqual(bad[0].code, "BadInput")
        # The same line `tonekit map` prints for that file.
        cli = run_cli("map", src, "-o", os.path.join(self.dir, "mixed-cli", "{name}.png"), "--backend", "cpu",
                      check=False)
        self.assertEqual(cli.returncode, 1)
        self.assertIn(f"tonekit: error: {bad[0].error}", cli.stderr)
        self.assertIn("tonekit: 5 written, 1 failed", cli.stderr)
        self.assertIn("tonekit: 5 written, 1 failed", str(table))
        names = [f"f{i:03d}.png" for i in range(6) if i != 3]
        self.assertEqual(sorted(os.listdir(out_dir)), names)
        self.assertSameAsCli(out_dir, names)

    def test_bad_requests_fail_before_any_task(self):
        from tonekit.dask import map_files
        out_dir = os.path.join(self.dir, "never")
        pattern = os.path.join(out_dir, "{name}.png")
        for kwargs, exc in (({"op": "nope"}, tonekit.InvalidArgument), ({"key": 5}, tonekit.InvalidArgument),
                            ({"backend": "gpu"}, tonekit.InvalidArgument), ({"bits": 12}, tonekit.InvalidArgument)):
            with self.subTest(kwargs=kwargs), self.assertRaises(exc):
                map_files([self.inputs], pattern, client=self.client, progress=False, **kwargs)
        with self.assertRaises(tonekit.InvalidArgument):
            map_files([self.inputs], os.path.join(out_dir, "same.png"), client=self.client, progress=False)
        with self.assertRaises(tonekit.InvalidArgument):
            map_files([self.inputs], os.path.join(out_dir, "{nope}.png"), client=self.client, progress=False)
        with self.assertRaises(tonekit.BadInput):
            map_files([os.path.join(self.dir, "cli")], pattern, client=self.client, progress=False)  # no HDR files
        self.assertFalse(os.path.exists(out_dir))

    def test_command_line_matches_tonekit_map(self):
        out_dir = os.path.join(self.dir, "cmd")
        files = [os.path.join(self.inputs, f"f{i:03d}.exr") for i in range(8)]
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
        p = subprocess.run([sys.executable, "-m", "tonekit.dask", *files, "-o", os.path.join(out_dir, "{name}.png"),
                            "--backend", "cpu", "--set", "key=0.14", "--scheduler", self.cluster.scheduler_address,
                            "--table", "--chunk-size", "3"], capture_output=True, text=True, env=env)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("f007.exr", p.stdout)
        names = sorted(f"f{i:03d}.png" for i in range(8))
        self.assertEqual(sorted(os.listdir(out_dir)), names)
        self.assertSameAsCli(out_dir, names)
        bad = subprocess.run([sys.executable, "-m", "tonekit.dask", files[0], "-o", os.path.join(out_dir, "x.png"),
                              "--op", "nope"], capture_output=True, text=True, env=env)
        self.assertEqual(bad.returncode, 1)
        self.assertTrue(bad.stderr.startswith("tonekit: error: unknown operator 'nope'"), bad.stderr)


if __name__ == "__main__":
    unittest.main()
