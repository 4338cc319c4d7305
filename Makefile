# avrokit: `make test` and `make demo` do all the set-up on a fresh Debian machine.
# Other targets: bench, sanitize, tsan (ThreadSanitizer on the threaded tests),
# valgrind, fuzz, fuzz-long (each fuzz target for FUZZ_LONG_SECONDS, then its corpus
# in fuzz/corpus replaced by a minimized merge), install-check, clean;
# test-aarch64 and test-m32 (portable builds: arm64 under qemu, 32-bit x86);
# test-clang (a Release -O3 build with clang and -Werror, and its unit tests);
# coverage (line and branch coverage of src/ by the suite; fails below COVERAGE_MIN % of lines).

BUILD        ?= build
ASAN_BUILD   ?= build-asan
TSAN_BUILD   ?= build-tsan
FUZZ_BUILD   ?= build-fuzz
AARCH64_BUILD ?= build-aarch64
M32_BUILD    ?= build-m32
CLANG_BUILD  ?= build-clang
COVERAGE_BUILD ?= build-coverage
COVERAGE_MIN ?= 90
AVROKIT       = $(BUILD)/tools/avrokit/avrokit
JOBS         ?= $(shell nproc 2>/dev/null || echo 2)
FUZZ_SECONDS ?= 60
FUZZ_LONG_SECONDS ?= 600
CMAKE_FLAGS  ?=

.PHONY: all deps configure build test demo bench sanitize tsan valgrind fuzz fuzz-long install-check clean \
        test-aarch64 test-m32 test-clang coverage

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
	@echo "== a torn tail: what a writer killed mid-block leaves; append refuses it, or cuts it (README: What survives a crash) =="
	@cp $(BUILD)/demo/orders.avro $(BUILD)/demo/torn.avro && truncate -s -100 $(BUILD)/demo/torn.avro
	$(AVROKIT) tojson --limit 2 $(BUILD)/demo/orders.avro > $(BUILD)/demo/two.json
	$(AVROKIT) fromjson --quiet --append $(BUILD)/demo/two.json $(BUILD)/demo/torn.avro \
	  || echo "(refused, exit status $$?: nothing was written)"
	$(AVROKIT) fromjson --quiet --append --truncate-torn-tail $(BUILD)/demo/two.json $(BUILD)/demo/torn.avro
	$(AVROKIT) count --verify $(BUILD)/demo/torn.avro
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

# ThreadSanitizer (clang) on the tests labelled threads, once each (no per-kernel
# reruns): the writer's compression threads, the reader's decode-ahead, the
# work splitters, and 16 threads sharing one schema and its plans (about 5
# minutes on 2 shared cores, most of it file_index_test). Only their executables
# are built (TSAN_TESTS; a threads test left out of the list shows as not found).
# clang 14's TSan stops with "unexpected memory mapping" on kernels with more
# mmap randomization (vm.mmap_rnd_bits above 28, as newer distributions set):
# the tests run with address randomization off (setarch -R, no root needed)
# wherever setarch can do that.
# TSAN_SKIP: threads tests built and run only when taken out of it. file_test
# runs clean under TSan but for one assertion: test_threads_workers expects all
# 3 decompression workers started after 3 records, and TSan's slow thread start
# lets the first workers drain the queue so fewer start (by design: not a race).
TSAN_TESTS ?= shared_plan_threads_test file_writer_threads_test file_work_test columns_work_test \
              file_test file_index_test schema_test schema_store_threads_test
TSAN_SKIP  ?= file_test
TSAN_RUN   ?= $(shell setarch $$(uname -m) -R true 2>/dev/null && echo setarch $$(uname -m) -R)

tsan: deps
	CC=clang CXX=clang++ cmake -S . -B $(TSAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DAVK_TSAN=ON \
	  -DAVK_WERROR=ON -DAVK_BUILD_BENCH=OFF -DAVK_BUILD_PYTHON=OFF $(CMAKE_FLAGS)
	cmake --build $(TSAN_BUILD) -j $(JOBS) --target $(filter-out $(TSAN_SKIP),$(TSAN_TESTS))
	TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 $$TSAN_OPTIONS" $(TSAN_RUN) \
	  ctest --test-dir $(TSAN_BUILD) --output-on-failure -j $(JOBS) -L threads \
	  -E '@$(foreach t,$(TSAN_SKIP),|^$(t)$$)'

valgrind: build
	ctest --test-dir $(BUILD) --output-on-failure -L 'unit|kernels' -E '@' \
	  --overwrite MemoryCheckCommandOptions="--error-exitcode=1 --leak-check=full" -T memcheck

fuzz: deps
	CC=clang CXX=clang++ cmake -S . -B $(FUZZ_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DAVK_BUILD_FUZZ=ON -DAVK_BUILD_TESTS=OFF -DAVK_BUILD_BENCH=OFF $(CMAKE_FLAGS)
	cmake --build $(FUZZ_BUILD) -j $(JOBS)
	bash fuzz/run-all.sh $(FUZZ_BUILD) $(FUZZ_SECONDS)

# Long fuzzing from the checked-in corpora, one target after another (no -fork
# or -jobs: 2 cores): each runs FUZZ_LONG_SECONDS, then fuzz/corpus/<target> is
# replaced by a minimized merge of it and the run's finds (named seeds always
# kept). Prints runs, exec/s and corpus sizes per target; a crash keeps its
# reproducer in $(FUZZ_BUILD)/fuzz-long/artifacts and fails. The new corpora
# are left for review, not committed.
fuzz-long: deps
	CC=clang CXX=clang++ cmake -S . -B $(FUZZ_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DAVK_BUILD_FUZZ=ON -DAVK_BUILD_TESTS=OFF -DAVK_BUILD_BENCH=OFF $(CMAKE_FLAGS)
	cmake --build $(FUZZ_BUILD) -j $(JOBS)
	bash fuzz/run-long.sh $(FUZZ_BUILD) $(FUZZ_LONG_SECONDS)

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

# Line and branch coverage of src/ (gcc --coverage at -O0, then gcovr): the
# whole suite with the per-kernel reruns (a kernel's file counts only where
# that kernel ran), but for the install checks (separate builds), the Python
# tests, and faults_test, whose failed mallocs crash gcov's own writing of the
# counts at exit. The counts start empty and writable by anyone: cli_test runs
# the CLI as nobody, whose counts would otherwise not be written (and the
# message saying so would change its output). The report is made even when a
# test fails (the target still fails). gcovr runs on one core: gcovr 5.2 with
# -j hangs instead of failing when gcov's output cannot be parsed. Prints the
# total and each file's figures; $(COVERAGE_BUILD)/coverage/ keeps them
# (coverage.txt) and an HTML page per file (index.html). Fails below
# COVERAGE_MIN % of the lines.
coverage: deps
	cmake -S . -B $(COVERAGE_BUILD) -DCMAKE_BUILD_TYPE=Debug -DAVK_COVERAGE=ON -DAVK_WERROR=ON \
	  -DAVK_BUILD_BENCH=OFF $(CMAKE_FLAGS)
	cmake --build $(COVERAGE_BUILD) -j $(JOBS)
	find $(COVERAGE_BUILD) -name '*.gcda' -delete
	find $(COVERAGE_BUILD) -name '*.gcno' -exec sh -c \
	  'for f; do : > "$${f%.gcno}.gcda" && chmod 666 "$${f%.gcno}.gcda"; done' sh {} +
	ctest --test-dir $(COVERAGE_BUILD) --output-on-failure -j $(JOBS) -LE 'install|python|faults'; \
	  tests=$$?; find $(COVERAGE_BUILD) -name '*.gcda' -empty -delete; \
	  rm -rf $(COVERAGE_BUILD)/coverage && mkdir -p $(COVERAGE_BUILD)/coverage && \
	  gcovr --root . --filter 'src/' --exclude-unreachable-branches \
	    --txt $(COVERAGE_BUILD)/coverage/coverage.txt \
	    --html-details $(COVERAGE_BUILD)/coverage/index.html \
	    --print-summary --fail-under-line $(COVERAGE_MIN) $(COVERAGE_BUILD); \
	  rc=$$?; cat $(COVERAGE_BUILD)/coverage/coverage.txt; \
	  [ $$rc -eq 0 ] || echo "coverage: gcovr failed, or fewer than $(COVERAGE_MIN) % of the lines of src/ ran" >&2; \
	  [ $$tests -eq 0 ] || echo "coverage: tests failed" >&2; \
	  [ $$rc -eq 0 ] && [ $$tests -eq 0 ]

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(TSAN_BUILD) $(FUZZ_BUILD) $(AARCH64_BUILD) $(M32_BUILD) $(CLANG_BUILD) \
	  $(CLANG_BUILD)-gcc $(COVERAGE_BUILD)
