#!/usr/bin/env python3
"""ctest ctest_labels (label unit): every registered test carries exactly one of the labels that
tests/CMakeLists.txt lists, so that `ctest -L '^LABEL$'` selects each test once and
`ctest --label-exclude bench` (make test) runs every real test.

Usage: check_ctest_labels.py CTEST BUILD_DIR. Exit 0 when every test has one allowed label; 1
with one line per offending test otherwise.
"""
import json
import subprocess
import sys

ALLOWED = ("unit", "gpu", "gpu-multi", "interop", "browser", "bench")


def main():
    ctest, build = sys.argv[1], sys.argv[2]
    out = subprocess.run([ctest, "--test-dir", build, "-N", "--show-only=json-v1"], check=True,
                         capture_output=True, text=True).stdout
    tests = json.loads(out).get("tests", [])
    counts = {label: 0 for label in ALLOWED}
    bad = []
    for t in tests:
        labels = [v for p in t.get("properties", []) if p.get("name") == "LABELS" for v in p.get("value", [])]
        if len(labels) != 1:
            bad.append(f"{t['name']} [{';'.join(labels)}]")
        elif labels[0] not in ALLOWED:
            bad.append(f"{t['name']} [{labels[0]}]: not one of {', '.join(ALLOWED)}")
        else:
            counts[labels[0]] += 1
    print(f"{len(tests)} tests: " + " ".join(f"{k} {v}" for k, v in counts.items()))
    for line in bad:
        print("without exactly one allowed label: " + line)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
