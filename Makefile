# Thin wrapper: every target installs what is missing, configures and builds first.
BUILD ?= build
JOBS ?= $(shell nproc)

.PHONY: demo test build configure bench clean setup sanitize fuzz

# `make test` also installs Chromium (its pages test); the demonstration does not need it.
setup:
	@bash scripts/setup.sh $(SETUP_FOR)

test: SETUP_FOR = test

# CMAKE_ARGS: extra configure options (CI passes -DPPSIM_WERROR=ON: a warning fails the build).
# `build` and `test` compile the CUDA sources wherever nvcc is (CI has no GPU and still checks them).
configure: setup
	@cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release -DPPSIM_ENABLE_CUDA=ON $(CMAKE_ARGS) >/dev/null

build: configure
	@cmake --build $(BUILD) -j $(JOBS)

# The main job: a demonstration run of the simulator (see README.md). It builds only the ppsim
# program, and its CUDA backend only where a GPU can run it (nvidia-smi lists one): elsewhere nvcc
# would spend minutes on code the demonstration never runs. The same build folder serves `make
# test`, which turns the CUDA sources back on and reuses everything else.
DEMO_CUDA := $(shell nvidia-smi -L 2>/dev/null | grep -q '^GPU' && echo ON || echo OFF)
demo: setup
	@cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release -DPPSIM_ENABLE_CUDA=$(DEMO_CUDA) $(CMAKE_ARGS) >/dev/null
	@cmake --build $(BUILD) -j $(JOBS) --target ppsim
	@bash scripts/demo.sh $(BUILD)/ppsim

test: build
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# AddressSanitizer + UndefinedBehaviorSanitizer over the CPU backend and the host-executed device
# rounds, then FUZZ_ARGS_RUNS random argument lists over every subcommand of the sanitized program
# (tests/fuzz_args.py, seeded: no signal, uncaught exception, sanitizer report or hang on any of
# them). No CUDA needed; about 8 minutes on 2 cores. Not part of `make test`.
FUZZ_ARGS_RUNS ?= 3000
FUZZ_ARGS_SEED ?= 1
sanitize: setup
	@cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPPSIM_ENABLE_CUDA=OFF -DPPSIM_BUILD_BENCH=OFF -DPPSIM_BUILD_PYTHON=OFF \
	  -DCMAKE_CXX_FLAGS="-fsanitize=address,undefined -fno-omit-frame-pointer" >/dev/null
	@cmake --build build-asan -j $(JOBS) --target test_cuda test_algorithms ppsim
	@UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 build-asan/tests/test_cuda --gtest_brief=1
	@UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 build-asan/tests/test_algorithms --gtest_brief=1 --gtest_filter='Cpu/*:CudaRoundsOnHost/*'
	@/usr/bin/python3 tests/fuzz_args.py --ppsim build-asan/ppsim --runs $(FUZZ_ARGS_RUNS) --seed $(FUZZ_ARGS_SEED)

# libFuzzer over the GOAL reader and the LogGP engine (clang, fuzz/Makefile): FUZZ_SECONDS of fuzzing
# on a copy of tests/data/goal_corpus/, then the inputs that add coverage are merged into it. Not part
# of `make test`; test_goal_corpus replays the kept corpus there.
FUZZ_SECONDS ?= 600
fuzz:
	@bash scripts/setup.sh fuzz
	@$(MAKE) --no-print-directory -C fuzz run FUZZ_SECONDS=$(FUZZ_SECONDS)

bench: build
	@$(BUILD)/bench/ppsim_bench --markdown

clean:
	rm -rf $(BUILD)
