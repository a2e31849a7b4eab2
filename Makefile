# SPDX-License-Identifier: GPL-2.0
#
# Top-level targets of the vfat nolongcreate project.  Everything heavy is
# done by qemu-run.sh (kernel tree, builds and results live in the cache dir,
# ${XDG_CACHE_HOME:-$HOME/.cache}/vfat-nolongcreate, never in the repo).
#
# Extra qemu-run.sh options for check/run/shell: make check ARGS='--jobs 2'
# Kernel line: make run ARGS='--kernel 6.12' (default 6.1; 7.3 is mainline);
# make check does all three (ARGS='--kernel 6.12' restricts it to one).

ARGS ?=

.PHONY: help check check-series shellcheck run debug shell bench fuzz fuzz-short \
	lookdiff lookdiff-short corrupt corrupt-short kunit deb deb-check distro check-debian submission docs-check \
	transcript fat83 fat83-test fat83-host-test fat83-guest card-host-test kernel-hook-test card-guest kcsan-judge-test kcsan-mutant \
	house-check

help:
	@echo 'make check         make docs-check, then on the three kernel lines (6.1, 6.12,'
	@echo '                   7.3 mainline): series hygiene (git am, checkpatch'
	@echo '                   --strict, selftests/ vs patches/LINE/), shellcheck,'
	@echo '                   fuzz model check + the fat'
	@echo "                   kselftests (the series' and the project's extended suite)"
	@echo "                   and fat's KUnit suite in QEMU, one kernel per line: normal"
	@echo '                   on 6.1, kcsan on 6.12, debug on 7.3; on 7.3 also make'
	@echo '                   lookdiff-short, corrupt-short (debug) and make kunit; then'
	@echo '                   make check-debian'
	@echo '                   (deb-check of Debian 12 and 13, their --distro-kernel boots)'
	@echo 'make check-series  only the series hygiene part (all lines) and make shellcheck'
	@echo "make shellcheck    shellcheck of the project's shell scripts, dkms/'s included"
	@echo '                   (the list in scripts/shellcheck.sh; also in make check)'
	@echo 'make run           ./qemu-run.sh (normal config)'
	@echo 'make debug         ./qemu-run.sh --config debug (KASAN, lockdep, UBSAN)'
	@echo 'make shell         boot the patched kernel into an interactive shell'
	@echo 'make bench         benchmark nolongcreate vs default vfat vs msdos in QEMU,'
	@echo '                   on the kernel with the 8.3 fast path (patch 0008) and'
	@echo '                   without it (bench/results.md, bench/plot.png; ~30 min,'
	@echo '                   ~35 with ARGS=--big-rounds 2, kernels built)'
	@echo 'make fuzz          differential test kernel vs model, 100000 names, random'
	@echo '                   seed (FUZZ_ARGS="--seed N --count N" to reproduce)'
	@echo 'make fuzz-short    the same, 5000 names, seed 1 (also part of make check)'
	@echo 'make lookdiff      differential test of the 8.3 fast path (patch 0008): the'
	@echo '                   kernel with it vs without it, 100000 cold lookups of random'
	@echo '                   raw 8.3 entries, random seed (FUZZ_ARGS="--seed N --count N")'
	@echo 'make lookdiff-short the same, 2000 lookups, seed 1 (also part of make check)'
	@echo 'make corrupt       corruption fuzzer: 2000 broken FAT images, random seed, on'
	@echo '                   the 7.3 debug kernel with and without the 8.3 fast path,'
	@echo '                   mounted with and without nolongcreate; zero splats'
	@echo '                   (FUZZ_ARGS="--seed N --count N"; fuzz/run-corrupt.sh)'
	@echo 'make corrupt-short the same, 8 images, seed 1 (also part of make check)'
	@echo 'make kunit         fat'"'"'s KUnit suite under UML: kunit.py run --kunitconfig'
	@echo '                   fs/fat in the 7.3 tree (scripts/kunit-uml.sh; ARGS="--kernel L")'
	@echo 'make deb           the source package (this tree) and its .debs for Debian 12'
	@echo '                   and 13 with dpkg-buildpackage (scripts/mkdeb.sh; in'
	@echo '                   <cache>/deb-dkms; DEB_ARGS=--upload: a build for upload;'
	@echo '                   DEB_ARGS=--tools-only: the tools .deb alone, no linux-source)'
	@echo 'make distro        the suite on Debian'"'"'s own kernel with the DKMS modules'
	@echo '                   (./qemu-run.sh --distro-kernel; ARGS="--kernel 6.12": Debian 13)'
	@echo 'make deb-check     install, kernel update, broken build, purge of the .deb in a'
	@echo '                   Debian 12 root (DEB_ARGS="--suite trixie": Debian 13)'
	@echo 'make check-debian  only the Debian part of make check: deb-check of Debian 12'
	@echo '                   and 13 at once, the two --distro-kernel boots, --no-dkms'
	@echo 'make submission    two postings for git send-email, From: and Signed-off-by:'
	@echo '                   your git identity: the option series (patches/7.3/series,'
	@echo '                   cover letter) and, on its own, the fast path as [RFC PATCH]'
	@echo '                   (patches/fastpath/); To/Cc from get_maintainer.pl + Andrew'
	@echo '                   Morton, Brauner, Viro, Jan Kara, fsdevel.  TREE=~/linux (a'
	@echo '                   mainline checkout): applied (git am), built and based'
	@echo '                   (format-patch --base) on its HEAD; without TREE on'
	@echo "                   Debian's linux-source-7.3, naming v7.3-rc7.  Checked: git am,"
	@echo '                   fs/fat W=1 and the selftests build, checkpatch --strict; in'
	@echo '                   <cache>/submission (scripts/submit.sh; SUBMIT_ARGS="--version 2")'
	@echo 'make docs-check    README.md and docs/ against make help and qemu-run.sh'
	@echo '                   --help: every target and option they name must exist,'
	@echo '                   every link must lead to a file (scripts/check-docs.sh;'
	@echo '                   the first step of make check, a second or two)'
	@echo "make transcript    boot the 7.3 kernel with ./qemu-run.sh --guest-cmd, run the"
	@echo "                   README's nolongcreate session in the guest and rewrite"
	@echo '                   its transcript in README.md (scripts/transcript.sh; ~1-2'
	@echo '                   min with the kernel built, ARGS="--kernel 6.12" another line)'
	@echo 'make fat83         build the fat83 command (tools/fat83; check, fix, undo and'
	@echo '                   name the names 8.3-only readers do not see, put files on a'
	@echo '                   card under 8.3 names; in the tools .deb)'
	@echo "make fat83-test    the fat83 suggester's host unit test (a second)"
	@echo "make fat83-host-test  fat83's journal, undo, what fix leaves alone and put, on"
	@echo '                   a plain host directory taken for vfat (LD_PRELOAD'
	@echo '                   fakevfat.so; nothing mounted; a second)'
	@echo "make card-host-test  how nolongcreate-card reads a hand-edited list of"
	@echo '                   cards (BOM, quotes, comments; the lines it warns about;'
	@echo '                   tools/card/host-test.sh; nothing marked, a second)'
	@echo "make kernel-hook-test  the DKMS package's kernel hook on a stand-in machine"
	@echo '                   (stand-ins for dkms, modinfo, udevadm): unsigned modules'
	@echo '                   built again once dkms can sign, udev asked again after a'
	@echo '                   build, one line at a kernel update; the postinst: dkms add'
	@echo '                   only where needed, never failing (scripts/kernel-hook-test.sh)'
	@echo "make kcsan-judge-test  the judge of KCSAN's reports on saved samples (core-only:"
	@echo '                   listed, not judged; an fs/fat frame in a stack: fails)'
	@echo "make house-check   the layout rules of docs/architecture.md: no archive host in"
	@echo '                   the code, the archive read from apt sources, no six lines'
	@echo '                   of one script in another, no fat83 C file over 800 lines,'
	@echo '                   scripts/ within a budget of lines (scripts/check-house.sh)'
	@echo 'make kcsan-mutant  the 6.12 KCSAN kernel catches a race between fs/fat and core'
	@echo '                   code: a mutant that drops fs/fat'"'"'s inode lock fails, the'
	@echo '                   series passes, under the same load (scripts/kcsan-mutant.sh)'
	@echo "make fat83-guest   fat83 on mtools- and Linux-made cards in the 7.3 guest:"
	@echo '                   plain and nolongcreate mounts, the raw 8.3 view after fix,'
	@echo '                   undo back to the same listing, what fix leaves alone'
	@echo '                   (tools/fat83/guest-test.sh; a few min with the kernel built)'
	@echo "make card-guest    the desktop path in a Debian 12 guest (Debian's kernel, udev,"
	@echo '                   D-Bus, udisks2): nolongcreate-card, udisksctl mount, the'
	@echo "                   writers' table of docs/writers.md, Debian's prusa-slicer on a"
	@echo '                   marked card and fat83 put; with and without the DKMS'
	@echo '                   modules (scripts/card-guest.sh, CARD_ARGS=--help; ~3 min)'
	@echo 'make help          this text'
	@echo 'Pass qemu-run.sh options with ARGS=..., e.g. make run ARGS=--verbose;'
	@echo 'the kernel line with ARGS="--kernel 6.12" (run, debug, shell, bench, fuzz...)'

check:
	./scripts/check.sh $(ARGS)

KERNEL_LINES = 6.1 6.12 7.3

check-series:
	set -e; for l in $(KERNEL_LINES); do ./qemu-run.sh --kernel $$l --check-series $(ARGS); done
	./scripts/shellcheck.sh

shellcheck:
	./scripts/shellcheck.sh

run:
	./qemu-run.sh $(ARGS)

docs-check:
	./scripts/check-docs.sh

transcript:
	./scripts/transcript.sh $(ARGS)

deb:
	./scripts/mkdeb.sh $(DEB_ARGS)

SUBMIT_ARGS ?=

submission:
	./scripts/submit.sh $(if $(TREE),--tree $(TREE)) $(SUBMIT_ARGS)

distro:
	./qemu-run.sh --distro-kernel $(ARGS)

deb-check:
	./scripts/deb-check.sh $(DEB_ARGS)

check-debian:
	./scripts/check.sh --debian-only $(ARGS)

debug:
	./qemu-run.sh --config debug $(ARGS)

shell:
	./qemu-run.sh --shell $(ARGS)

FUZZ_ARGS ?=

bench:
	./bench/run-bench.sh $(ARGS)

fuzz:
	./fuzz/run-fuzz.sh --count 100000 $(FUZZ_ARGS) $(ARGS)

fuzz-short:
	./fuzz/run-fuzz.sh --count 5000 --seed 1 $(FUZZ_ARGS) $(ARGS)

lookdiff:
	./fuzz/run-lookdiff.sh --count 100000 $(FUZZ_ARGS) $(ARGS)

lookdiff-short:
	./fuzz/run-lookdiff.sh --count 2000 --seed 1 $(FUZZ_ARGS) $(ARGS)

corrupt:
	./fuzz/run-corrupt.sh --count 2000 $(FUZZ_ARGS) $(ARGS)

corrupt-short:
	./fuzz/run-corrupt.sh --count 8 --seed 1 $(FUZZ_ARGS) $(ARGS)

kunit:
	./scripts/kunit-uml.sh $(ARGS)

fat83:
	$(MAKE) -C tools/fat83

fat83-test:
	$(MAKE) -C tools/fat83 test

fat83-host-test:
	$(MAKE) -C tools/fat83 host-test

card-host-test:
	./tools/card/host-test.sh

kernel-hook-test:
	./scripts/kernel-hook-test.sh

kcsan-judge-test:
	./scripts/kcsan-judge-test.sh

house-check:
	./scripts/check-house.sh

kcsan-mutant:
	./scripts/kcsan-mutant.sh $(ARGS)

fat83-guest:
	./tools/fat83/guest-test.sh $(ARGS)

card-guest:
	./scripts/card-guest.sh $(CARD_ARGS)
