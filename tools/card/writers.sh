#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# writers.sh DEVICE [STL]: the writers' table.  On a nolongcreate mount of the
# empty vfat DEVICE, each program writes a new 8.3 name (NEW.GCO), over an
# existing 8.3 file (EXIST.GCO) and a long name (Long Name.gcode), then
# the first two again with what makes it work.  A cell says what happened,
# measured: "written" (exit 0, the content arrived, nothing else left in
# the directory), or the exit status and the error the program printed.
# With STL (a model), PrusaSlicer's command line exports its G-code, and
# the way that works instead (the export to /tmp, then fat83 put); Cura's
# row is printed as read in its source, not measured.  Prints the markdown
# table that docs/writers.md holds.
set -u
DEV=$1 STL=${2:-}
D=/mnt/writers
mkdir -p "$D" /tmp/w
mount -t vfat -o nolongcreate,shortname=mixed,utf8,flush "$DEV" "$D" || { echo "# cannot mount $DEV"; exit 1; }
grep -q "^$DEV .*nolongcreate" /proc/mounts || { echo "# $DEV: not mounted with nolongcreate"; exit 1; }
export HOME=/root LC_ALL=C.UTF-8
printf 'new\n' >/tmp/w/src
tar -C /tmp/w -cf /tmp/w/t.tar --transform='s,src,NEW.GCO,' src
tar -C /tmp/w -cf /tmp/w/e.tar --transform='s,src,EXIST.GCO,' src
tar -C /tmp/w -cf /tmp/w/l.tar --transform='s,src,Long Name.gcode,' src

# the command of writer W for target T (a path in $D); $S the source
cmd() {
	local w=$1 t=$2 b
	b=$(basename "$t")
	case $w in
	cp) cp /tmp/w/src "$t" ;;
	mv) cp /tmp/w/src /tmp/w/mv && mv /tmp/w/mv "$t" ;;
	install) install -m 644 /tmp/w/src "$t" ;;
	tar) case $b in NEW.GCO) tar -C "$D" -xf /tmp/w/t.tar ;; EXIST.GCO) tar -C "$D" -xf /tmp/w/e.tar ;; *) tar -C "$D" -xf /tmp/w/l.tar ;; esac ;;
	rsync) rsync /tmp/w/src "$t" ;;
	rsync-inplace) rsync --inplace /tmp/w/src "$t" ;;
	rsync-tempdir) rsync --temp-dir=/tmp /tmp/w/src "$t" ;;
	sed) sed -i 's/old/new/' "$t" ;;
	sed-redirect) sed 's/old/new/' "$t" >/tmp/w/sed && cat /tmp/w/sed >"$t" ;;
	vim) vim.tiny -E -s -c '%d' -c 'normal! inew' -c 'wq' "$t" </dev/null ;;
	gio-copy) gio copy /tmp/w/src "$t" ;;
	gio-save) gio save "$t" </tmp/w/src ;;
	gio-save-backup) gio save --backup "$t" </tmp/w/src ;;
	python) python3 -c 'import shutil, sys; shutil.copy(sys.argv[1], sys.argv[2])' /tmp/w/src "$t" ;;
	mktemp) tmp=$(mktemp -p "$D") && cat /tmp/w/src >"$tmp" && mv "$tmp" "$t" ;;
	tmp83) cat /tmp/w/src >"$D/SAVE.TMP" && mv "$D/SAVE.TMP" "$t" ;;
	prusa) prusa-slicer --export-gcode --output "$t" "$STL" ;;
	prusa-put) rm -f "/tmp/w/$b" && prusa-slicer --export-gcode --output "/tmp/w/$b" "$STL" && fat83 put "/tmp/w/$b" "$D" ;;
	esac
}

# whether FILE holds what writer W writes: G-code for the slicer, else "new"
arrived() {
	case $1 in
	prusa*) [ -f "$2" ] && grep -q '^G1 ' "$2" ;;
	*) [ "$(cat "$2" 2>/dev/null)" = new ] ;;
	esac
}

# one cell: run writer W on target T after setting the directory up
cell() {
	local w=$1 t=$2 rc err left
	find "$D" -mindepth 1 -delete
	printf 'old\n' >"$D/EXIST.GCO"
	cmd "$w" "$D/$t" >/tmp/w/out 2>&1
	rc=$?
	left=$(find "$D" -mindepth 1 -maxdepth 1 ! -name EXIST.GCO ! -name "$t" -printf '%f ' | sed 's/ $//')
	err=$(grep -o -m1 -e 'File name too long' -e 'Invalid argument' -e 'Operation not permitted' -e 'Permission denied' -e 'Backup file creation failed' -e 'Cannot open the file for writing' /tmp/w/out)
	if [ $rc = 0 ] && arrived "$w" "$D/$t" && [ -z "$left" ]; then
		echo "written"
	elif [ $rc = 0 ] && arrived "$w" "$D/$t"; then
		echo "written, left: $left"
	elif [ $rc = 0 ] && [ -n "$left" ] && [ "${left#* }" = "$left" ] && arrived "$w" "$D/$left"; then
		echo "written as $left"
	elif [ $rc = 0 ]; then
		echo "exit 0, not written${err:+ ($err)}"
	elif arrived "$w" "$D/$t"; then
		echo "written, exit $rc${err:+ ($err)}"
	else
		err=${err:-$(head -n1 /tmp/w/out | cut -c1-60)}
		# the existing file: still there, or gone
		if [ "$t" = EXIST.GCO ] && [ ! -e "$D/EXIST.GCO" ]; then
			echo "exit $rc${err:+: $err}; EXIST.GCO removed"
		else
			echo "exit $rc${err:+: $err}"
		fi
	fi
}

row() { # row LABEL WRITER FIX-WRITER FIX-LABEL
	local label=$1 w=$2 fw=$3 fl=$4 new ex long fnew fex
	ex=$(cell "$w" EXIST.GCO)
	if [ "$w" = sed ]; then # edits an existing file only
		new=- long=-
	else
		new=$(cell "$w" NEW.GCO)
		long=$(cell "$w" "Long Name.gcode")
	fi
	if [ "$fw" = - ]; then
		echo "| $label | $new | $ex | $long | - | - |"
	else
		fex=$(cell "$fw" EXIST.GCO)
		if [ "$w" = sed ]; then
			echo "| $label | $new | $ex | $long | $fl | -; $fex |"
		else
			fnew=$(cell "$fw" NEW.GCO)
			echo "| $label | $new | $ex | $long | $fl | $fnew; $fex |"
		fi
	fi
}

echo "| writer | new 8.3 name | existing 8.3 file | long name | what makes it work | with it: new; existing |"
echo "|---|---|---|---|---|---|"
row "cp" cp - -
row "mv (from another filesystem)" mv - -
row "install" install - -
row "tar -x" tar - -
row "rsync" rsync rsync-inplace "\`--inplace\`" 
row "rsync" rsync rsync-tempdir "\`--temp-dir=/tmp\`"
row "sed -i" sed sed-redirect "\`sed ... FILE > TMP && cat TMP > FILE\`"
row "vim.tiny" vim - -
row "gio copy" gio-copy - -
row "gio save" gio-save - -
row "gio save --backup" gio-save-backup gio-save "no \`--backup\`"
row "Python shutil.copy" python - -
row "save via mktemp, then mv" mktemp tmp83 "an 8.3 temporary name (\`SAVE.TMP\`)"
if [ -n "$STL" ]; then
	row "PrusaSlicer (\`prusa-slicer --export-gcode --output\`)" prusa prusa-put \
		"export to the home folder, then \`fat83 put\`"
fi
echo "| Cura \"Save to Removable Drive\" (read in its source, not measured) | - | - | refused: always \`<job name>.gcode\` | \"Save to Disk\" under an 8.3 name, or save to the home folder, then \`fat83 put\` | - |"
umount "$D"
