# SPDX-License-Identifier: GPL-2.0
# gnuplot script for bench/run-bench.sh:
#   gnuplot -e "datafile='plot.dat'; outfile='plot.png'; subtitle='...'" bench/plot.gp
# plot.dat (written by nlc-bench in the guest): one block per (name set, mount),
# index 0-2 lower-case names (default, nolongcreate, msdos), 3-5 upper-case;
# columns: N create lookup readdir unlink bytes_per_entry (times: median us/op).
if (!exists("datafile")) datafile = 'plot.dat'
if (!exists("outfile")) outfile = 'plot.png'
if (!exists("subtitle")) subtitle = ''
set terminal pngcairo size 1500,950 font ",10"
set output outfile
set multiplot layout 2,3 title "vfat nolongcreate vs default vfat vs msdos (QEMU TCG guest; medians over rounds)\n".subtitle
set key top left font ",8"
set grid
set xlabel "files in the directory (N)"
set style line 1 lc rgb "#1f77b4" lw 2 pt 7 dt 1
set style line 2 lc rgb "#d62728" lw 2 pt 5 dt 1
set style line 3 lc rgb "#2ca02c" lw 2 pt 9 dt 1
set style line 4 lc rgb "#1f77b4" lw 2 pt 6 dt 2
set style line 5 lc rgb "#d62728" lw 2 pt 4 dt 2
set style line 6 lc rgb "#2ca02c" lw 2 pt 8 dt 2
names = "default nolongcreate msdos"
t(i) = (i < 3 ? "lower " : "UPPER ").word(names, i % 3 + 1)
do for [c in "2 3 4 5"] {
	col = int(c)
	set title word("create lookup(cold) readdir unlink", col - 1)." time per ".(col == 4 ? "entry" : "operation")
	set ylabel "microseconds"
	plot for [i=0:5] datafile index i using 1:col with linespoints ls (i+1) title t(i)
}
set title "directory bytes per entry (raw image)"
set ylabel "bytes"
set yrange [0:80]
plot for [i=0:5] datafile index i using 1:6 with linespoints ls (i+1) title t(i)
set yrange [*:*]
set title "time ratio nolongcreate / default (solid), nolongcreate / msdos (dashed)"
set ylabel "ratio (medians)"
set logscale y 2
set yrange [0.25:16]
opn = "create lookup readdir unlink"
plot for [k=1:4] datafile index 6 using 1:(column(k+1)) with linespoints lw 2 lc k dt 1 title "lower ".word(opn, k)." / default", \
     for [k=1:4] datafile index 6 using 1:(column(k+5)) with linespoints lw 2 lc k dt 2 title "lower ".word(opn, k)." / msdos", \
     1 with lines lc rgb "black" dt 3 notitle
unset logscale y
unset multiplot
