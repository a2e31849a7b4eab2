# SPDX-License-Identifier: GPL-2.0
# gnuplot script for bench/run-bench.sh:
#   gnuplot -e "datafile='plot.dat'; outfile='plot.png'; subtitle='...'" bench/plot.gp
# plot.dat (nlc-bench --report): index 0 lower-case, 1 upper-case names:
# N, then for create lookup readdir unlink the ratio nolongcreate / msdos
# without the fast path and with it; index 2: N, then for each op the
# ratio with / without of nolongcreate (upper-case names) and of default
# vfat in a directory of long names.
if (!exists("datafile")) datafile = 'plot.dat'
if (!exists("outfile")) outfile = 'plot.png'
if (!exists("subtitle")) subtitle = ''
set terminal pngcairo size 1650,560 font ",10"
set output outfile
set multiplot layout 1,3 title "vfat 8.3 fast path (QEMU TCG guest; medians of per-round ratios)\n".subtitle
set key top left font ",8"
set grid
set xlabel "files in the directory (N)"
set logscale y 2
opn = "create lookup readdir unlink"
do for [set in "0 1"] {
	s = int(set)
	set title (s == 0 ? "lower-case" : "UPPER-CASE")." names: nolongcreate / msdos"
	set ylabel "time ratio"
	set yrange [0.25:32]
	plot for [k=1:4] datafile index s using 1:(column(2*k)) with linespoints lw 2 lc k dt 2 pt 4 title word(opn, k)." without", \
	     for [k=1:4] datafile index s using 1:(column(2*k+1)) with linespoints lw 2 lc k dt 1 pt 7 title word(opn, k)." with", \
	     1 with lines lc rgb "black" dt 3 notitle, 1.5 with lines lc rgb "gray" dt 3 title "1.5"
}
set title "with / without the fast path"
set yrange [0.0625:2]
plot for [k=1:4] datafile index 2 using 1:(column(2*k)) with linespoints lw 2 lc k dt 1 pt 7 title "nolongcreate UPPER ".word(opn, k), \
     for [k=1:4] datafile index 2 using 1:(column(2*k+1)) with linespoints lw 2 lc k dt 2 pt 4 title "default, long names ".word(opn, k), \
     1 with lines lc rgb "black" dt 3 notitle
unset multiplot
