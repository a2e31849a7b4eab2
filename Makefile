# SPDX-License-Identifier: GPL-2.0
#
# Top-level targets of the vfat nolongcreate project.  Everything heavy is
# done by qemu-run.sh (kernel tree, builds and results live in the cache dir,
# ${XDG_CACHE_HOME:-$HOME/.cache}/vfat-nolongcreate, never in the repo).
#
# Extra qemu-run.sh options for check/run/shell: make check ARGS='--jobs 2'

ARGS ?=

.PHONY: help check check-series shellcheck run debug default-on shell bench fuzz fuzz-short

help:
	@echo 'make check         series hygiene (git am, checkpatch --strict, selftests/'
	@echo '                   vs patches/, shellcheck) + the fat kselftests in QEMU'
	@echo '                   with the normal, debug and default-on configs'
	@echo 'make check-series  only the series hygiene part'
	@echo 'make run           ./qemu-run.sh (normal config)'
	@echo 'make debug         ./qemu-run.sh --config debug (KASAN, lockdep, UBSAN)'
	@echo 'make default-on    ./qemu-run.sh --config default-on'
	@echo 'make shell         boot the patched kernel into an interactive shell'
	@echo 'make bench         benchmark nolongcreate vs default vfat vs msdos in QEMU'
	@echo '                   (bench/results.md, bench/plot.png; ~15 min)'
	@echo 'make fuzz          differential test kernel vs model, 100000 names, random'
	@echo '                   seed (FUZZ_ARGS="--seed N --count N" to reproduce)'
	@echo 'make fuzz-short    the same, 5000 names, seed 1 (also part of make check)'
	@echo 'make help          this text'
	@echo 'Pass qemu-run.sh options with ARGS=..., e.g. make run ARGS=--verbose'

check:
	./scripts/check.sh $(ARGS)

check-series:
	./qemu-run.sh --check-series $(ARGS)
	shellcheck -x qemu-run.sh .ci/run scripts/*.sh

run:
	./qemu-run.sh $(ARGS)

debug:
	./qemu-run.sh --config debug $(ARGS)

default-on:
	./qemu-run.sh --config default-on $(ARGS)

shell:
	./qemu-run.sh --shell $(ARGS)

FUZZ_ARGS ?=

bench:
	./bench/run-bench.sh $(ARGS)

fuzz:
	./fuzz/run-fuzz.sh --count 100000 $(FUZZ_ARGS) $(ARGS)

fuzz-short:
	./fuzz/run-fuzz.sh --count 5000 --seed 1 $(FUZZ_ARGS) $(ARGS)
