# Shared by examples-c/Makefile and the bindings' Makefiles: where libgpmp is, and the target `lib`
# that builds it (cargo build --release) unless GPMP_LIB_DIR was given, then links it into
# $(BUILD)/lib under its link name and its SONAME (libgpmp.so.0) for programs to load.
#
# The including Makefile sets ROOT (the checkout) and BUILD (its build folder) first.
CARGO ?= cargo
GPMP_LIB_DIR ?= $(shell cd $(ROOT) && $(CARGO) metadata --no-deps --format-version 1 | \
                  sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')/release
VERSION := $(shell sed -n 's/^version = "\(.*\)"/\1/p' $(ROOT)/Cargo.toml | head -n1)
GPMP_LIB := $(BUILD)/lib
# Compile and link flags for a program or shim using libgpmp from $(GPMP_LIB).
GPMP_CFLAGS := -I$(ROOT)/include
GPMP_LDFLAGS := -L$(GPMP_LIB) -Wl,-rpath,$(GPMP_LIB) -lgpmp -lgmp

.PHONY: lib
lib:
ifeq ($(origin GPMP_LIB_DIR),file)
	cd $(ROOT) && $(CARGO) build --release
endif
	@test -f $(GPMP_LIB_DIR)/libgpmp.so || { echo "no libgpmp.so in $(GPMP_LIB_DIR)"; exit 1; }
	mkdir -p $(GPMP_LIB)
	ln -sf $(abspath $(GPMP_LIB_DIR))/libgpmp.so $(GPMP_LIB)/libgpmp.so
	ln -sf $(abspath $(GPMP_LIB_DIR))/libgpmp.so $(GPMP_LIB)/libgpmp.so.0
