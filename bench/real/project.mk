# SPDX-License-Identifier: Apache-2.0
# The `make -j2` workload of bench/real/run: PS-UIE's own core and bridge
# (14 C files) compiled with gcc -O2 and archived with ar, as a project's
# build does it.  make -f project.mk TOP=SOURCE-TREE [clean]
SRC := $(wildcard $(TOP)/lib/core/*.c) $(wildcard $(TOP)/lib/bridge/*.c)
OBJ := $(patsubst $(TOP)/%.c,obj/%.o,$(SRC))
CFLAGS := -std=c17 -O2 -D_GNU_SOURCE -I$(TOP)/include -I$(TOP)/lib/core -I$(TOP)/lib/bridge \
	-I$(TOP)/lib/host

libuie.a: $(OBJ)
	ar rcs $@ $^

obj/%.o: $(TOP)/%.c
	@mkdir -p $(dir $@)
	gcc $(CFLAGS) -c $< -o $@

clean:
	rm -rf obj libuie.a

.PHONY: clean
