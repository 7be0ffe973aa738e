# SPDX-License-Identifier: Apache-2.0
# Figure 3: execve (warm and cold) and mprotect NX->X (file-backed allowed and
# missing, anonymous), by size of the executable content.
# gnuplot -e "plotdir='bench/plot'; datadir='bench/results'; term='svg'" bench/plot/fig3.gp
load plotdir . "/common.gpi"
if (term eq "svg") { set terminal svg size 1500,850 dynamic font "sans,11" }
else { set terminal pngcairo size 1500,850 font "sans,10" }
set output sprintf("%s/fig3.%s", datadir, term)
set multiplot layout 2,3
do for [panel in "execve-warm execve-cold mprotect-anon mprotect-file-allowed mprotect-file-missing"] {
	f = sprintf("%s/%s.dat", datadir, panel)
	set title panel
	set xlabel "executable content size"
	plot for [i=1:words(names)] f using (column(2*i)):xtic(1) title word(names, i) lc rgb word(colors, i), \
	     for [i=1:words(names)] f using 0:(column(2*i+1)) axes x1y2 with linespoints lw 2 pt 7 \
	     lc rgb word(colors, i) notitle
}
unset multiplot
