# The two set-up commands of the README (run as root on a fresh Debian 12 machine):
#   make demo   install what the demo needs, build the tonekit CLI (Release), synthesise and
#               tone-map the demo scenes
#   make test   install what the tests need too, build everything (Release), run the whole test
#               suite (ctest, every label but bench)
# Everything else is a helper of these two. Both use build/ (the `release` preset's folder).
# make demo builds only the CLI and what it links; configuring a new build/ it leaves out the
# tests and benchmarks, and the CUDA backend unless the machine has an NVIDIA GPU (DEMO_CUDA=ON
# or OFF decides otherwise). make test turns them all on and builds everything.

BUILD ?= build
JOBS ?= $(shell nproc)
E2E := tests/studio/e2e
CMAKE_FLAGS ?=
DEMO_CUDA ?= $(shell if [ -e /dev/nvidiactl ] || nvidia-smi -L >/dev/null 2>&1; then echo ON; else echo OFF; fi)
DEMO_CONFIG := $(if $(wildcard $(BUILD)/CMakeCache.txt),,-DTONEKIT_CUDA=$(DEMO_CUDA) -DTONEKIT_TESTS=OFF -DTONEKIT_BENCH=OFF)
# What `make demo` needs: the toolchain, the CLI's libraries, and the peers and ffmpeg that
# `tonekit compare` and the demo's MP4s run when they are installed.
DEMO_PACKAGES := cmake ninja-build g++ pkg-config libopenexr-dev libpng-dev libjpeg-dev libisal-dev libcli11-dev \
                 libfftw3-dev libcpp-httplib-dev nlohmann-json3-dev pfstools pfstmo python3 python3-opencv ffmpeg \
                 libavformat-dev libavcodec-dev libavutil-dev libswresample-dev libswscale-dev
# What the tests add: GoogleTest and Google Benchmark, clang and libFuzzer (make fuzz), the
# browser test's chromium and node (its node modules: npm ci below), GL/EGL/Vulkan headers and
# Xvfb for the renderer example and the interop tests; the Python module's build (pybind11, the
# headers) and its tests (NumPy, pytest, dask.distributed's LocalCluster), venv and setuptools for
# the README's `pip install .`.
TEST_PACKAGES := libgtest-dev libbenchmark-dev clang libclang-rt-14-dev chromium nodejs \
                 libegl-dev libgl-dev libvulkan-dev xvfb \
                 python3-dev python3-pybind11 python3-numpy python3-pytest python3-dask python3-distributed \
                 python3-venv python3-setuptools

.PHONY: demo test deps deps-demo build build-demo fuzz bench-cpu clean

# apt-get install of the packages in $(1) that are not installed yet.
define apt_install
	@missing=$$(for p in $(1); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q "install ok installed" || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "installing:" $$missing; \
	  if [ "$$(id -u)" != 0 ]; then SUDO=sudo; fi; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends $$missing; \
	fi
endef

deps-demo:
	$(call apt_install,$(DEMO_PACKAGES))

deps: deps-demo
	$(call apt_install,$(TEST_PACKAGES))
	@# npm: Debian's package, unless the installed nodejs already brings its own (nodesource's does).
	@if ! command -v npm >/dev/null; then \
	  if [ "$$(id -u)" != 0 ]; then SUDO=sudo; fi; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends npm; \
	fi
	@# The studio's browser test drives Debian's chromium with playwright-core (no browser download):
	@# npm ci only when the lock file changed since the last install.
	@if [ ! -f $(E2E)/node_modules/.package-lock.json ] || [ $(E2E)/package-lock.json -nt $(E2E)/node_modules/.package-lock.json ]; then \
	  cd $(E2E) && npm ci --no-audit --no-fund --loglevel=error; \
	fi

build-demo: deps-demo
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release $(DEMO_CONFIG) $(CMAKE_FLAGS)
	cmake --build $(BUILD) -j $(JOBS) --target tonekit_cli

build: deps
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release -DTONEKIT_CUDA=ON -DTONEKIT_TESTS=ON -DTONEKIT_BENCH=ON \
	  $(CMAKE_FLAGS)
	cmake --build $(BUILD) -j $(JOBS)

demo: build-demo
	$(BUILD)/bin/tonekit demo --out out/demo
	$(BUILD)/bin/tonekit compare --synth 960x540 $(DEMO_IMAGES) --out out/compare

test: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS) --label-exclude bench

# libFuzzer targets with clang (see README "Fuzzing"); FUZZ_SECONDS per target.
FUZZ_SECONDS ?= 20
fuzz: deps
	bash scripts/run_fuzzers.sh $(FUZZ_SECONDS)

bench-cpu: build
	$(BUILD)/bin/bench_cpu_tonemap

clean:
	rm -rf $(BUILD) out
