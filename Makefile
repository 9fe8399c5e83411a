# Thin wrapper: every target installs what is missing, configures and builds first.
BUILD ?= build
JOBS ?= $(shell nproc)

.PHONY: demo test build bench clean setup

setup:
	@bash scripts/setup.sh

build: setup
	@cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

# The main job: a demonstration run of the simulator (see README.md).
demo: build
	@bash scripts/demo.sh $(BUILD)/ppsim

test: build
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

bench: build
	@$(BUILD)/bench/ppsim_bench --markdown

clean:
	rm -rf $(BUILD)
