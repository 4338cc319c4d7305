# avrokit: `make test` and `make demo` do all the set-up on a fresh Debian machine.
# Other targets: bench, sanitize, valgrind, fuzz, install-check, clean;
# test-aarch64 and test-m32 (portable builds: arm64 under qemu, 32-bit x86);
# test-clang (a Release -O3 build with clang and -Werror, and its unit tests).

BUILD        ?= build
ASAN_BUILD   ?= build-asan
FUZZ_BUILD   ?= build-fuzz
AARCH64_BUILD ?= build-aarch64
M32_BUILD    ?= build-m32
CLANG_BUILD  ?= build-clang
AVROKIT       = $(BUILD)/tools/avrokit/avrokit
JOBS         ?= $(shell nproc 2>/dev/null || echo 2)
FUZZ_SECONDS ?= 60
CMAKE_FLAGS  ?=

.PHONY: all deps configure build test demo bench sanitize valgrind fuzz install-check clean \
        test-aarch64 test-m32 test-clang

all: build

deps:
	@bash tools/install-deps.sh

configure: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DAVK_WERROR=ON $(CMAKE_FLAGS)

build: configure
	cmake --build $(BUILD) -j $(JOBS)

# Every test: unit (once per kernel), kernels, interop, fuzz corpora replay, install check.
# Runs for a kernel this machine cannot run are reported as skipped; the last
# lines say which kernels ran here.
test: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS); rc=$$?; \
	  $(AVROKIT) --version | sed -n '2,3p'; exit $$rc

demo: build
	$(BUILD)/examples/varint_demo examples/data/readings.avrodata
	@echo
	$(BUILD)/examples/records_demo examples/data/reading.avsc examples/data/readings.avrodata
	@echo
	$(BUILD)/examples/build_demo examples/data/order.avsc
	@echo
	@echo "== the bundled schema, through the avrokit CLI =="
	$(BUILD)/tools/avrokit/avrokit schema check examples/data/reading.avsc
	$(BUILD)/tools/avrokit/avrokit schema canonical examples/data/reading.avsc
	$(BUILD)/tools/avrokit/avrokit schema fingerprint --algo rabin examples/data/reading.avsc
	$(BUILD)/tools/avrokit/avrokit schema fingerprint --algo sha256 examples/data/reading.avsc
	@echo
	@echo "== container files: random orders, every codec, read back =="
	@mkdir -p $(BUILD)/demo
	$(AVROKIT) random --quiet --schema examples/data/order.avsc --count 100000 --seed 42 \
	  $(BUILD)/demo/orders.avro
	$(AVROKIT) getmeta $(BUILD)/demo/orders.avro
	$(AVROKIT) tojson --head 2 --pretty $(BUILD)/demo/orders.avro
	@for c in deflate snappy zstandard bzip2 xz; do \
	  $(AVROKIT) recodec --quiet --codec $$c $(BUILD)/demo/orders.avro $(BUILD)/demo/orders-$$c.avro \
	    && printf '%-10s %10s bytes, %s records\n' $$c \
	      "$$(stat -c %s $(BUILD)/demo/orders-$$c.avro)" \
	      "$$($(AVROKIT) count $(BUILD)/demo/orders-$$c.avro)" || exit 1; \
	done
	$(BUILD)/examples/container_demo $(BUILD)/demo/orders.avro
	@echo
	@echo "== one file on every core: -j 1 and -j 2, the same output (docs/parallel.md) =="
	@for j in 1 2; do \
	  s=$$(date +%s%N); \
	  $(AVROKIT) tojson --quiet -j $$j $(BUILD)/demo/orders-deflate.avro > $(BUILD)/demo/orders-j$$j.json || exit 1; \
	  e=$$(date +%s%N); \
	  printf 'tojson -j %s: %s records in %s ms\n' $$j "$$(wc -l < $(BUILD)/demo/orders-j$$j.json)" $$(( (e - s) / 1000000 )); \
	done; cmp $(BUILD)/demo/orders-j1.json $(BUILD)/demo/orders-j2.json && echo "the same output"
	$(AVROKIT) count --verify -j 2 $(BUILD)/demo/orders-zstandard.avro
	@echo
	@echo "== the block index: record 99,998 of 100,000 without reading the others (docs/cli.md#index) =="
	$(AVROKIT) index $(BUILD)/demo/orders.avro
	$(AVROKIT) tojson --offset 99998 --limit 1 $(BUILD)/demo/orders.avro | cut -c1-100
	$(AVROKIT) tail -n 1 $(BUILD)/demo/orders.avro | cut -c1-100
	@echo
	@echo "== generated code: avrokit gen for order.avsc (docs/gen.md), the orders read through it =="
	@mkdir -p $(BUILD)/demo/gen
	$(AVROKIT) gen --list --prefix shop examples/data/order.avsc -o $(BUILD)/demo/gen
	$(BUILD)/examples/gen_demo $(BUILD)/demo/orders.avro
	@echo
	@echo "== Python: the orders as dicts, NumPy columns, a DataFrame and Arrow (docs/python.md) =="
	PYTHONPATH=$(BUILD)/python /usr/bin/python3 examples/python_demo.py $(BUILD)/demo/orders.avro
	@echo
	@echo "== Dask: the orders files through a LocalCluster of 2 worker processes (docs/python.md#dask) =="
	PYTHONPATH=$(BUILD)/python /usr/bin/python3 examples/dask_demo.py $(BUILD)/demo/orders*.avro

# make bench [KERNEL=name] [FILTER=regex]: every row, or those FILTER picks,
# with the kernel forced (fails when this CPU cannot run it).
bench: build
	python3 bench/compare --bin $(BUILD)/bench/avrokit_bench $(if $(KERNEL),--kernel '$(KERNEL)') $(if $(FILTER),'$(FILTER)')

sanitize: deps
	cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DAVK_SANITIZE=ON -DAVK_WERROR=ON \
	  -DAVK_BUILD_BENCH=OFF $(CMAKE_FLAGS)
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	ctest --test-dir $(ASAN_BUILD) --output-on-failure -j $(JOBS)

valgrind: build
	ctest --test-dir $(BUILD) --output-on-failure -L 'unit|kernels' -E '@' \
	  --overwrite MemoryCheckCommandOptions="--error-exitcode=1 --leak-check=full" -T memcheck

fuzz: deps
	CC=clang CXX=clang++ cmake -S . -B $(FUZZ_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DAVK_BUILD_FUZZ=ON -DAVK_BUILD_TESTS=OFF -DAVK_BUILD_BENCH=OFF $(CMAKE_FLAGS)
	cmake --build $(FUZZ_BUILD) -j $(JOBS)
	bash fuzz/run-all.sh $(FUZZ_BUILD) $(FUZZ_SECONDS)

# Portable builds: the library, CLI and whole suite for 64-bit Arm (Debian's
# cross compiler, every test under qemu-user) and for 32-bit x86 (gcc -m32; tests
# natively, or under qemu-i386 where the kernel cannot execute 32-bit programs),
# against Debian's :arm64 / :i386 packages of the dependencies. No benchmarks.
# The last lines say which kernels ran there (the portable scalar one).
PORT_FLAGS = -DCMAKE_BUILD_TYPE=RelWithDebInfo -DAVK_WERROR=ON -DAVK_BUILD_BENCH=OFF

test-aarch64:
	@bash tools/install-deps.sh aarch64
	cmake -S . -B $(AARCH64_BUILD) -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake \
	  $(PORT_FLAGS) $(CMAKE_FLAGS)
	cmake --build $(AARCH64_BUILD) -j $(JOBS)
	ctest --test-dir $(AARCH64_BUILD) --output-on-failure -j $(JOBS); rc=$$?; \
	  $(AARCH64_BUILD)/emulated/avrokit_cli --version | sed -n '2,3p'; exit $$rc

test-m32:
	@bash tools/install-deps.sh m32
	cmake -S . -B $(M32_BUILD) -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/i686-m32.cmake \
	  $(PORT_FLAGS) $(CMAKE_FLAGS)
	cmake --build $(M32_BUILD) -j $(JOBS)
	ctest --test-dir $(M32_BUILD) --output-on-failure -j $(JOBS); rc=$$?; \
	  cli=$(M32_BUILD)/emulated/avrokit_cli; [ -x $$cli ] || cli=$(M32_BUILD)/tools/avrokit/avrokit; \
	  $$cli --version | sed -n '2,3p'; exit $$rc

# Warnings are errors under clang as well, and under gcc at -O3 (Release),
# where the flow analyses see the most (the library and tools of a gcc Release
# build; make test builds at -O2).
test-clang: deps
	CC=clang CXX=clang++ cmake -S . -B $(CLANG_BUILD) -DCMAKE_BUILD_TYPE=Release -DAVK_WERROR=ON \
	  -DAVK_BUILD_BENCH=OFF $(CMAKE_FLAGS)
	cmake --build $(CLANG_BUILD) -j $(JOBS)
	ctest --test-dir $(CLANG_BUILD) --output-on-failure -j $(JOBS) -L 'unit|kernels' -E '@'
	cmake -S . -B $(CLANG_BUILD)-gcc -DCMAKE_BUILD_TYPE=Release -DAVK_WERROR=ON \
	  -DAVK_BUILD_TESTS=OFF -DAVK_BUILD_BENCH=OFF $(CMAKE_FLAGS)
	cmake --build $(CLANG_BUILD)-gcc -j $(JOBS)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD) $(AARCH64_BUILD) $(M32_BUILD) $(CLANG_BUILD) \
	  $(CLANG_BUILD)-gcc
