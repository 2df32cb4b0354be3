# The two set-up commands of the README (run as root on a fresh Debian 12 machine):
#   make demo   install what is missing, build Release, synthesise and tone-map the demo scenes
#   make test   install what is missing, build Release, run the whole test suite (ctest)
# Everything else is a helper of these two.

BUILD ?= build
JOBS ?= $(shell nproc)
E2E := tests/studio/e2e
CMAKE_FLAGS ?=
DEB_PACKAGES := cmake ninja-build g++ pkg-config libopenexr-dev libpng-dev libjpeg-dev libisal-dev libcli11-dev \
                libgtest-dev libbenchmark-dev libfftw3-dev pfstools pfstmo clang libclang-rt-14-dev python3 \
                ffmpeg libcpp-httplib-dev nlohmann-json3-dev chromium nodejs python3-opencv \
                libegl-dev libgl-dev libvulkan-dev xvfb

.PHONY: demo test deps build fuzz bench-cpu clean

deps:
	@missing=$$(for p in $(DEB_PACKAGES); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q "install ok installed" || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "installing:" $$missing; \
	  if [ "$$(id -u)" != 0 ]; then SUDO=sudo; fi; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends $$missing; \
	fi
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

build: deps
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS)
	cmake --build $(BUILD) -j $(JOBS)

demo: build
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
