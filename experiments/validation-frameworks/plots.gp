# Plots of results.py's output. Call with
#   gnuplot -e "out='OUT_DIR'; dest='DEST_DIR'" plots.gp
# Writes DEST/parity.png (predicted vs published tokens/s per GPU, log-log, one colour per
# table, y = x with the +-8% / +-20% targets) and DEST/errors.png (error by sequence length).
load out."/plotvars.gp"
dat = out."/parity.dat"

set terminal pngcairo size 820, 760 font ",10"
set output dest."/parity.png"
set title "llm-foundry (PyTorch FSDP): trainsim vs published, tokens/s per GPU"
set logscale xy
set xrange [500:200000]
set yrange [500:200000]
set size ratio -1
set grid
set key top left font ",9"
set xlabel "published tokens/s per GPU"
set ylabel "predicted tokens/s per GPU"
set style fill transparent solid 0.15 noborder
set samples 200
plot '+' using 1:($1 * 0.8):($1 * 1.2) with filledcurves lc rgb "#4daf4a" title "+-20%", \
     '+' using 1:($1 * 0.92):($1 * 1.08) with filledcurves lc rgb "#377eb8" title "+-8%", \
     x with lines lc black dt 2 title "y = x", \
     for [i = 0:ntables - 1] dat index i using 1:2 with points pt (5 + 2 * (i % 4)) ps 0.9 lc (i + 1) \
         title value("tname".i)

reset
load out."/plotvars.gp"
set terminal pngcairo size 900, 520 font ",10"
set output dest."/errors.png"
set title "llm-foundry (PyTorch FSDP): prediction error by sequence length (dashed: +-20%)"
set logscale x 2
set xrange [380:90000]
set yrange [-45:45]
set grid
set key outside right font ",9"
set xlabel "sequence length (tokens)"
set ylabel "predicted / published - 1 (%)"
set xtics (512, 1024, 2048, 4096, 8192, 16384, 32768, 65536)
plot 20 with lines lc rgb "#c0392b" dt 2 notitle, -20 with lines lc rgb "#c0392b" dt 2 notitle, \
     0 with lines lc black notitle, \
     for [i = 0:ntables - 1] out."/seqlen.dat" index i using ($1 * (1 + 0.04 * (i - 2))):2 \
         with points pt (5 + 2 * (i % 4)) ps 0.9 lc (i + 1) title value("tname".i)
