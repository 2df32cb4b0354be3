"""What the Python tests share: the CLI they compare against, the real images, temporary folders.
The tests are unittest cases, so they run under pytest (ctest's way) and under
`python3 -m unittest` (GPU hosts without pytest). ctest sets PYTHONPATH to build/python,
TONEKIT_CLI and TONEKIT_SHARED_HDR; run by hand, the defaults are the repository's build/."""
import os
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("TONEKIT_BUILD_DIR", os.path.join(REPO, "build"))
if os.path.isdir(os.path.join(BUILD, "python")) and os.path.join(BUILD, "python") not in sys.path:
    sys.path.insert(0, os.path.join(BUILD, "python"))
CLI = os.environ.get("TONEKIT_CLI", os.path.join(BUILD, "bin", "tonekit"))
SHARED_HDR = os.environ.get("TONEKIT_SHARED_HDR", os.path.join(REPO, "..", "shared", "hdr"))
HDR_EXTENSIONS = (".exr", ".hdr", ".pic", ".pfm")


def run_cli(*args, check=True):
    """Runs the tonekit CLI; returns the CompletedProcess (text)."""
    p = subprocess.run([CLI, *map(str, args)], capture_output=True, text=True)
    if check and p.returncode != 0:
        raise AssertionError(f"tonekit {' '.join(map(str, args))} failed ({p.returncode}): {p.stderr}")
    return p


def cli_error(*args):
    """The one-line message `tonekit ...` prints for an error (without 'tonekit: error: ')."""
    p = run_cli(*args, check=False)
    assert p.returncode != 0, f"tonekit {args} should have failed"
    lines = [l for l in p.stderr.splitlines() if l.startswith("tonekit: error: ")]
    assert lines, p.stderr
    return lines[0][len("tonekit: error: "):]


def shared_images():
    """The real HDR images of ../shared/hdr (empty when the folder is absent)."""
    if not os.path.isdir(SHARED_HDR):
        return []
    return sorted(os.path.join(SHARED_HDR, n) for n in os.listdir(SHARED_HDR)
                  if os.path.splitext(n)[1].lower() in HDR_EXTENSIONS)


def temp_dir(case):
    """A temporary folder removed when the test case ends."""
    d = tempfile.TemporaryDirectory(prefix="tonekit-py-")
    case.addCleanup(d.cleanup)
    return d.name
