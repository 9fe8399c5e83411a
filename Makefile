# Thin wrapper: every target installs what is missing, configures and builds first.
BUILD ?= build
JOBS ?= $(shell nproc)

.PHONY: demo test build configure bench clean setup sanitize

setup:
	@bash scripts/setup.sh

# CMAKE_ARGS: extra configure options (CI passes -DPPSIM_WERROR=ON: a warning fails the build).
configure: setup
	@cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release $(CMAKE_ARGS) >/dev/null

build: configure
	@cmake --build $(BUILD) -j $(JOBS)

# The main job: a demonstration run of the simulator (see README.md); builds only the ppsim program.
demo: configure
	@cmake --build $(BUILD) -j $(JOBS) --target ppsim
	@bash scripts/demo.sh $(BUILD)/ppsim

test: build
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# AddressSanitizer + UndefinedBehaviorSanitizer over the CPU backend and the host-executed device
# rounds (no CUDA needed; about 4 minutes on 2 cores). Not part of `make test`.
sanitize: setup
	@cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPPSIM_ENABLE_CUDA=OFF -DPPSIM_BUILD_BENCH=OFF \
	  -DCMAKE_CXX_FLAGS="-fsanitize=address,undefined -fno-omit-frame-pointer" >/dev/null
	@cmake --build build-asan -j $(JOBS) --target test_cuda test_algorithms
	@UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 build-asan/tests/test_cuda --gtest_brief=1
	@UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 build-asan/tests/test_algorithms --gtest_brief=1 --gtest_filter='Cpu/*:CudaRoundsOnHost/*'

bench: build
	@$(BUILD)/bench/ppsim_bench --markdown

clean:
	rm -rf $(BUILD)
