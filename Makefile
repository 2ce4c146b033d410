# Thin wrapper over CMake: make, make check, make demo, make install.
# Missing Debian packages are installed first when run as root; otherwise
# make stops and prints the one command that installs them
# (scripts/install-deps.sh, the one list; DEPS=0 skips the check).
BUILD ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=
PREFIX ?= /usr/local
DEPS ?= 1

.PHONY: all configure deps-build deps-check check check-gpu demo figures bench install clean \
	format format-check asan fuzz

all: configure
	cmake --build $(BUILD) -j $(JOBS)

configure: deps-build
	@test -f $(BUILD)/CMakeCache.txt || cmake -S . -B $(BUILD) $(CMAKE_FLAGS)

deps-build deps-check:
	@[ "$(DEPS)" = 0 ] || ./scripts/install-deps.sh $(@:deps-%=%)

# (deps-check covers deps-build: the two never run apt-get at once under -j)
check: deps-check
	$(MAKE) all DEPS=0
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) -LE gpu

check-gpu: all
	cd $(BUILD) && SDK_TEST_BACKEND=cuda ctest --output-on-failure -L gpu

demo: all
	./scripts/demo.sh

# The committed pictures of docs/figures, every one, redrawn by one script
# (the examples write to results/figures otherwise); at the paper's size on
# a GPU.
figures: deps-check
	$(MAKE) all DEPS=0
	./scripts/figures.sh

# bin/sdekit, lib/libsdekit.so* and .a, include/sdekit.h, share/sdekit/models,
# lib/pkgconfig/sdekit.pc, lib/cmake/sdekit, share/man/man1/sdekit.1 under
# PREFIX; the tree can be moved afterwards (cmake/install.cmake).
install: all
	cmake --install $(BUILD) --prefix $(abspath $(PREFIX))

bench: all
	./$(BUILD)/sdekit bench

# AddressSanitizer + UBSan over the whole suite, built without MPI (so CI
# also shows that a build without MPI passes the suite; Open MPI's own
# allocations would drown LeakSanitizer's report).  LeakSanitizer needs ptrace to
# stop threads, which some sandboxes forbid; so leaks are checked in a second
# pass over the single-threaded tests (OMP_NUM_THREADS=1).  -O1, as the
# AddressSanitizer documentation advises for reasonable speed (the reports
# keep their file:line).
asan:
	$(MAKE) BUILD=build-asan CMAKE_FLAGS="-DSDK_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS_DEBUG='-g -O1' -DSDK_MPI=OFF" all
	cd build-asan && SDK_NVRTC_EVERY=4 ASAN_OPTIONS=detect_leaks=0 ctest --output-on-failure -j $(JOBS) -LE gpu
	cd build-asan && OMP_NUM_THREADS=1 ASAN_OPTIONS=detect_leaks=1 ctest --output-on-failure \
	  -R '^(test_model|test_io|test_philox|cli_bad_input)$$'

# libFuzzer over the parsers of untrusted input (fuzz/README.md): each target
# FUZZ_SECONDS under ASan + UBSan, starting from the committed seed corpus.
# New corpus entries, crash inputs and logs stay in build-fuzz/ (copy a crash
# input to fuzz/regress/TARGET/ with the fix).
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?= model expr checkpoint h5 scantable h5table table
fuzz:
	@test -f build-fuzz/CMakeCache.txt || CC=clang cmake -S . -B build-fuzz -DSDK_FUZZ=ON \
	  -DBUILD_TESTING=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo
	cmake --build build-fuzz -j $(JOBS) --target $(addprefix fuzz_,$(FUZZ_TARGETS))
	@# JOBS targets at a time, each on one core for FUZZ_SECONDS; each one's report printed whole
	@rm -f build-fuzz/fuzz-failures.txt
	@printf '%s\n' $(FUZZ_TARGETS) | xargs -P $(JOBS) -I{} sh -c \
	  'out=$$(./fuzz/run.sh $(CURDIR)/build-fuzz {} $(FUZZ_SECONDS) 2>&1); rc=$$?; \
	   printf "fuzz_%s: %s s\n%s\n" {} $(FUZZ_SECONDS) "$$out"; exit $$rc' || \
	  { echo "fuzz: failures (each input also in base64 where small; fuzz/README.md):"; \
	    cat build-fuzz/fuzz-failures.txt 2>/dev/null; exit 1; }

format:
	clang-format -i $$(git ls-files '*.c' '*.h' '*.cu')

# fails when a source file is not in the committed .clang-format style
format-check:
	clang-format --dry-run -Werror $$(git ls-files '*.c' '*.h' '*.cu')

clean:
	rm -rf $(BUILD) build-asan build-fuzz
