# SPDX-License-Identifier: Apache-2.0
# Figure 4: mmap(PROT_EXEC) via dlopen of 1..16 shared objects of 4 KB, 64 KB
# and 1 MB of code; rows: allowed by the policy (warm), missing from it, and
# allowed but measured again on every load (cold).
# gnuplot -e "plotdir='bench/plot'; datadir='bench/results'; term='svg'" bench/plot/fig4.gp
load plotdir . "/common.gpi"
if (term eq "svg") { set terminal svg size 1500,1250 dynamic font "sans,11" }
else { set terminal pngcairo size 1500,1250 font "sans,10" }
set output sprintf("%s/fig4.%s", datadir, term)
set multiplot layout 3,3
set xlabel "shared objects loaded"
do for [var in "allowed missing cold"] {
	do for [size in "4k 64k 1m"] {
		f = sprintf("%s/mmap-%s-%s.dat", datadir, var, size)
		set title sprintf("%s DSOs, %s", size, var)
		plot for [i=1:words(names)] f using (column(2*i)):xtic(1) title word(names, i) lc rgb word(colors, i), \
		     for [i=1:words(names)] f using 0:(column(2*i+1)) axes x1y2 with linespoints lw 2 pt 7 \
		     lc rgb word(colors, i) notitle
	}
}
unset multiplot
