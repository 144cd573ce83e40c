# nbhbench — see README.md.
#   make        install what is missing, build one kernel per MPI library found
#   make test   ... and run every test; ends with "N passed, N failed"
#   make demo   ... and run the five steps of the demo campaign (Debian's Open MPI and MPICH;
#               make demo LIBRARIES="openmpi5 mpich5 intelmpi openmpi mpich" for others)
#   make bench  kernel, analyzer and graph-generation benchmarks (prints figures, never fails on timing)
#   make deps   install what is missing (Debian/Ubuntu packages, .venv)
# One library by hand: make kernel LIBRARY=name MPICC=wrapper
# Current releases (nbhbench install-mpi NAME, into .mpi/NAME/) are built too.
SHELL := /bin/bash
.DEFAULT_GOAL := all
BUILD := build

KNOWN_LIBRARIES := openmpi mpich
FOUND_LIBRARIES := $(foreach l,$(KNOWN_LIBRARIES),$(if $(shell command -v mpicc.$(l) 2>/dev/null),$(l)))
# Installed by `nbhbench install-mpi NAME` (read when used: make test installs first).
# The project's folder may hold spaces: make's own file functions split at
# them, so paths outside the project's relative ones are handed to the
# shell quoted ("$(CURDIR)", $(call quoted,...)), and globbed there.
quoted = '$(subst ','\'',$(1))'
MPI_PREFIX := $(or $(NBH_MPI_PREFIX),$(CURDIR)/.mpi)
INSTALLED_LIBRARIES = $(shell for marker in $(call quoted,$(MPI_PREFIX))/*/.nbh-installed; do \
    [ -f "$$marker" ] && basename "$$(dirname "$$marker")"; done)
# The current releases make test installs and tests (each a small campaign).
TEST_RELEASES ?= openmpi5 mpich5 intelmpi
LIBRARIES ?=

CFLAGS := -std=c11 -D_GNU_SOURCE -O2 -g -Wall -Wextra -Werror
CPPFLAGS := -Ikernel -I$(BUILD)

KERNEL_SOURCES := $(wildcard kernel/*.c kernel/topologies/*.c kernel/setups/*.c kernel/datatypes/*.c kernel/sync/*.c)
UNIT_SOURCES := $(wildcard tests/kernel/unit/*.c)

.PHONY: all deps kernels kernel releases analyzer test demo bench clean FORCE

all: deps
	@$(MAKE) --no-print-directory kernels analyzer

# The analyzer's C routines (analyze/native/), compiled ahead of the first analysis.
analyzer:
	@NBH_ROOT=$(call quoted,$(CURDIR)) Rscript --vanilla -e 'source("analyze/load.R"); if (is.null(native_library())) quit(status = 1)'

deps:
	@libexec/nbhbench-deps

# A library's sources compile in parallel, one job per core (KERNEL_JOBS=1: one at a time).
KERNEL_JOBS ?= $(shell nproc 2>/dev/null || echo 1)

kernels: $(BUILD)/nbh-dims $(BUILD)/nbh-graph-rows
	@$(if $(FOUND_LIBRARIES),,echo "make: no MPI compiler wrapper found (mpicc.openmpi, mpicc.mpich); run make deps" >&2; exit 1)
	@for library in $(FOUND_LIBRARIES); do \
	    $(MAKE) --no-print-directory -j$(KERNEL_JOBS) kernel LIBRARY=$$library MPICC=mpicc.$$library || exit 1; \
	done
	@# Intel MPI's mpicc finds its headers through I_MPI_ROOT (the others ignore it).
	@# MPICC is shell words (a wrapper may take options): its path goes in quoted.
	@for library in $(INSTALLED_LIBRARIES); do \
	    prefix=$(call quoted,$(MPI_PREFIX))/$$library; \
	    I_MPI_ROOT=$$prefix $(MAKE) --no-print-directory -j$(KERNEL_JOBS) kernel LIBRARY=$$library \
	        MPICC="$$(printf '%q' "$$prefix/bin/mpicc")" || exit 1; \
	done

# Installs the current releases the tests run (a missing one fails its tests).
releases:
	@./nbhbench install-mpi $(TEST_RELEASES) || true

test: deps releases
	@$(MAKE) --no-print-directory kernels analyzer
	@tests/run

demo: all
	@./nbhbench demo $(LIBRARIES)

bench: all
	@bench/run

clean:
	rm -rf $(BUILD)

$(BUILD)/registry.h: registry/c_header.py $(wildcard registry/*.csv)
	@mkdir -p $(@D)
	@echo "  LD $@"
	@python3 registry/c_header.py $@

# Rewritten only when the commit changes, so a rebuild is not forced.
$(BUILD)/version.h: FORCE
	@mkdir -p $(@D)
	@v="#define NBH_VERSION \"$$(git describe --always --dirty 2>/dev/null || echo unknown)\""; \
	    [ -f $@ ] && [ "$$(cat $@)" = "$$v" ] || echo "$$v" > $@

$(BUILD)/nbh-dims: kernel/tools/dims.c kernel/topologies/dims.c $(BUILD)/registry.h
	@mkdir -p $(@D)
	@echo "  LD $@"
	@$(CC) $(CFLAGS) $(CPPFLAGS) kernel/tools/dims.c kernel/topologies/dims.c -o $@

# The kernel's graph file reader alone, for make bench (bench-graphs).
$(BUILD)/nbh-graph-rows: kernel/tools/graph_rows.c kernel/topologies/graph_file.c $(BUILD)/registry.h
	@mkdir -p $(@D)
	@echo "  LD $@"
	@$(CC) $(CFLAGS) $(CPPFLAGS) kernel/tools/graph_rows.c kernel/topologies/graph_file.c -o $@

# --- one MPI library: make kernel LIBRARY=name MPICC=wrapper ---
ifdef LIBRARY
MPICC ?= mpicc
OUT := $(BUILD)/$(LIBRARY)
OBJECTS := $(patsubst kernel/%.c,$(OUT)/obj/%.o,$(KERNEL_SOURCES))
UNIT_OBJECTS := $(filter-out $(OUT)/obj/main.o,$(OBJECTS))

kernel: $(OUT)/nbh-kernel $(OUT)/operations.csv $(OUT)/nbh-mpi-dims $(OUT)/libnbh-yield.so $(OUT)/unit-tests \
        $(OUT)/libnbh-slowdown.so $(OUT)/libnbh-reorder.so $(OUT)/libnbh-counts.so $(OUT)/libnbh-struct-slowdown.so \
        $(OUT)/nbh-pack-bench $(OUT)/nbh-kernel-testclock $(OUT)/libnbh-neighbor-barrier.so \
        $(OUT)/libnbh-addresses.so $(OUT)/nbh-cvars

$(OUT)/obj/%.o: kernel/%.c $(BUILD)/registry.h $(BUILD)/version.h
	@mkdir -p $(@D)
	@echo "  CC [$(LIBRARY)] $<"
	@$(MPICC) $(CFLAGS) $(CPPFLAGS) -include $(BUILD)/version.h -DNBH_LIBRARY='"$(LIBRARY)"' -MMD -MP -c $< -o $@

$(OUT)/nbh-kernel: $(OBJECTS)
	@mkdir -p $(@D)
	@echo "  LD $@"
	@$(MPICC) $(CFLAGS) $^ -lm -o $@

# The kernel of the clock-synchronisation tests (tests/kernel): every process's
# clock off by a known offset and drift (tests/kernel/test_clock.c instead of
# kernel/sync/local_clock.c). Never the measuring binary.
$(OUT)/nbh-kernel-testclock: $(filter-out $(OUT)/obj/sync/local_clock.o,$(OBJECTS)) tests/kernel/test_clock.c
	@mkdir -p $(@D)
	@echo "  LD $@"
	@$(MPICC) $(CFLAGS) $(CPPFLAGS) $^ -lm -o $@

# Which operations this build can run (persistent collectives depend on the
# library): what `nbhbench generate` reads. The kernel answers without MPI_Init.
$(OUT)/operations.csv: $(OUT)/nbh-kernel
	@echo "  GEN $@"
	@$< --operations > $@.tmp && mv $@.tmp $@

$(OUT)/nbh-mpi-dims: kernel/tools/mpi_dims.c
	@mkdir -p $(@D)
	@echo "  LD $@"
	@$(MPICC) $(CFLAGS) $< -o $@

# The library's control variables with their choices, for nbhbench tune (tune/space.py).
$(OUT)/nbh-cvars: kernel/tools/cvars.c $(OUT)/obj/control_variables.o $(OUT)/obj/closest_name.o
	@mkdir -p $(@D)
	@echo "  LD $@"
	@$(MPICC) $(CFLAGS) $(CPPFLAGS) $^ -o $@

$(OUT)/libnbh-yield.so: kernel/tools/ucx_yield.c
	@mkdir -p $(@D)
	@echo "  LD $@"
	@$(CC) $(CFLAGS) -shared -fPIC $< -ldl -o $@

# The PMPI tool of the end-to-end test (tests/workflow): plants a known slowdown.
$(OUT)/libnbh-slowdown.so: tests/workflow/pmpi_slowdown.c
	@mkdir -p $(@D)
	@echo "  LD $@"
	@$(MPICC) $(CFLAGS) -shared -fPIC $< -o $@

# The PMPI tool of the datatypes end-to-end test (tests/workflow): slows struct descriptions.
$(OUT)/libnbh-struct-slowdown.so: tests/workflow/pmpi_struct_slowdown.c
	@mkdir -p $(@D)
	@echo "  LD $@"
	@$(MPICC) $(CFLAGS) -shared -fPIC $< -o $@

# The PMPI tool of the arrival test (tests/workflow): MPI_Neighbor_alltoall
# waits for every process of its communicator first (AR2's planted defect).
$(OUT)/libnbh-neighbor-barrier.so: tests/workflow/pmpi_neighbor_barrier.c
	@mkdir -p $(@D)
	@echo "  LD $@"
	@$(MPICC) $(CFLAGS) -shared -fPIC $< -o $@

# The PMPI tool of the kernel's reorder test (tests/kernel): renumbers on reorder = 1.
$(OUT)/libnbh-reorder.so: tests/kernel/pmpi_reorder.c
	@mkdir -p $(@D)
	@echo "  LD $@"
	@$(MPICC) $(CFLAGS) -shared -fPIC $< -o $@

# The PMPI tool of the graph tests (tests/kernel): records the bytes on every edge.
$(OUT)/libnbh-counts.so: tests/kernel/pmpi_counts.c
	@echo "  LD $@"
	@$(MPICC) $(CFLAGS) -shared -fPIC $< -o $@

# The PMPI tool of the kernel's rounds test (tests/kernel): where the buffers lie in their pages.
$(OUT)/libnbh-addresses.so: tests/kernel/pmpi_addresses.c
	@mkdir -p $(@D)
	@echo "  LD $@"
	@$(MPICC) $(CFLAGS) -shared -fPIC $< -o $@

# The packings' copy speed against memcpy, for make bench (bench/bench-datatypes).
$(OUT)/nbh-pack-bench: kernel/tools/pack_bench.c $(UNIT_OBJECTS)
	@mkdir -p $(@D)
	@echo "  LD $@"
	@$(MPICC) $(CFLAGS) $(CPPFLAGS) $^ -lm -o $@

$(OUT)/unit-tests: $(UNIT_SOURCES) $(UNIT_OBJECTS)
	@mkdir -p $(@D)
	@echo "  LD $@"
	@$(MPICC) $(CFLAGS) $(CPPFLAGS) -Itests/kernel/unit $^ -lm -o $@

-include $(OBJECTS:.o=.d)
endif
