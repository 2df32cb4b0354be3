"""`pip install .`: the module tonekit._tonekit is the CMake target tonekit_python (python/CMakeLists.txt),
built for the interpreter running pip; the package is python/tonekit. No download: CMake, a
compiler, pybind11 and NumPy come from the system (--no-build-isolation).

TONEKIT_CMAKE_BUILD_DIR: the CMake build folder to use (default build-pip-pyXY beside this file;
kept, so a second install rebuilds only what changed). TONEKIT_CMAKE_ARGS: more -D options, e.g.
"-DTONEKIT_CUDA=OFF". CMAKE_BUILD_PARALLEL_LEVEL: build jobs (default: the CPU count)."""
import glob
import os
import shlex
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = os.path.dirname(os.path.abspath(__file__))


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build = os.environ.get("TONEKIT_CMAKE_BUILD_DIR") or os.path.join(
            ROOT, f"build-pip-py{sys.version_info.major}{sys.version_info.minor}")
        configure = ["cmake", "-S", ROOT, "-B", build, f"-DTONEKIT_PYTHON_EXECUTABLE={sys.executable}"]
        if not os.path.exists(os.path.join(build, "CMakeCache.txt")):
            # A new folder: only what the module needs. An existing one keeps its own options.
            configure += ["-DCMAKE_BUILD_TYPE=Release", "-DTONEKIT_TESTS=OFF", "-DTONEKIT_BENCH=OFF"]
            if shutil.which("ninja"):
                configure += ["-G", "Ninja"]
        configure += shlex.split(os.environ.get("TONEKIT_CMAKE_ARGS", ""))
        subprocess.check_call(configure)
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", str(os.cpu_count() or 1))
        subprocess.check_call(["cmake", "--build", build, "--target", "tonekit_python", "-j", jobs])
        built = os.path.join(build, "python", "tonekit")
        module = glob.glob(os.path.join(built, "_tonekit*.so"))
        if not module:
            raise RuntimeError(f"the CMake build made no module in {built}")
        target = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(module[0], target)
        # The stubs generated from the registry (python/gen_stubs.py) travel with the package.
        for name in ("__init__.pyi", "py.typed"):
            shutil.copyfile(os.path.join(built, name), os.path.join(os.path.dirname(target), name))


os.makedirs(os.path.join(ROOT, "build-pip"), exist_ok=True)  # egg_base must exist
setup(
    packages=["tonekit"],
    package_dir={"tonekit": "python/tonekit"},
    ext_modules=[Extension("tonekit._tonekit", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    # setuptools' own build folder away from CMake's build/ (make test's).
    options={"build": {"build_base": "build-pip/setuptools"}, "egg_info": {"egg_base": "build-pip"}},
    zip_safe=False,
)
