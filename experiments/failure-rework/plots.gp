# Failure-rework plots from analyze.py's output. Call with
#   gnuplot -e "out='OUT_DIR'; dest='DEST_DIR'" plots.gp
# Writes DEST/scan.png, DEST/interval.png, DEST/spot.png and DEST/spares.png.
array colour[3] = ["#1b9e77", "#d95f02", "#7570b3"]

# ---------------------------------------------------------------- scan.png
set terminal pngcairo size 900, 760 font ",10"
set output dest."/scan.png"
set multiplot layout 2, 1 title "Llama 3 8B on 15T tokens, 8 to 16,384 H200 (AWS p5en), failures from the Llama 3 statistics, checkpoint interval at Daly's optimum"
set logscale x 2
set xrange [6:22000]
set xtics ("8" 8, "32" 32, "128" 128, "512" 512, "2048" 2048, "8192" 8192, "16384" 16384)
set grid
set key bottom center font ",9"
set ylabel "goodput (failure-free / expected time, %)"
set yrange [90:100.5]
set title "goodput: small jobs lose to slow checkpoints and per-job software crashes, large ones to frequent interruptions"
plot out."/scan.dat" using 1:(100 * $2) with linespoints lw 2 pt 7 lc rgb colour[1] title "all failure processes (default)", \
     out."/scan.dat" using 1:(100 * $3) with linespoints lw 2 pt 6 dt 2 lc rgb colour[2] title "hardware only (no per-job software process)"
set title "expected cost of the whole run, and model FLOPs utilisation (right axis)"
set xlabel "GPUs (log)"
set ylabel "expected cost (million USD)"
set yrange [3:7]
set y2label "MFU (%)"
set y2range [0:60]
set y2tics
set ytics nomirror
set key top left font ",9"
plot out."/scan.dat" using 1:4 with linespoints lw 2 pt 7 lc rgb colour[1] title "with failures, restarts, checkpoints", \
     out."/scan.dat" using 1:5 with linespoints lw 2 pt 6 dt 2 lc rgb "#555555" title "failure-free", \
     out."/scan.dat" using 1:(100 * $7) axes x1y2 with linespoints lw 1.5 dt 3 pt 1 lc rgb colour[3] title "MFU (right)"
unset multiplot

# ---------------------------------------------------------------- interval.png
reset
set terminal pngcairo size 900, 560 font ",10"
set output dest."/interval.png"
set title "Expected time to train vs checkpoint interval (points: Monte Carlo, 1000 replications; lines: Daly's closed form;\nstars: \"auto\" = Daly's optimum, what trainsim uses by default)"
set logscale xy
set xlabel "checkpoint interval (useful compute between checkpoints)"
set ylabel "expected time over failure-free time (%)"
set xtics ("15 s" 15, "1 min" 60, "5 min" 300, "20 min" 1200, "1 h" 3600, "4 h" 14400, "8 h" 28800)
set ytics (1, 2, 3, 5, 10, 20, 50, 100)
set xrange [10:40000]
set yrange [1.5:150]
set grid
set key top left font ",9"
sizes = "64 1024 16384"
plot for [i = 1:3] sprintf("%s/interval-%s.dat", out, word(sizes, i)) using 1:3 with lines lw 1.5 lc rgb colour[i] notitle, \
     for [i = 1:3] sprintf("%s/interval-%s.dat", out, word(sizes, i)) using 1:2 with points pt 7 ps 0.9 lc rgb colour[i] title word(sizes, i)." GPUs", \
     for [i = 1:3] sprintf("%s/interval-%s-auto.dat", out, word(sizes, i)) using 1:2 with points pt 3 ps 3 lw 2 lc rgb "black" notitle

# ---------------------------------------------------------------- spot.png
reset
set terminal pngcairo size 900, 560 font ",10"
set output dest."/spot.png"
set title "Spot vs on-demand (AWS p5en list prices, spot $3.36 vs $7.91 per GPU-hour): expected spot bill over the on-demand bill\nas preemptions get rarer; crossover marked; the dotted line is the AWS Spot Advisor's >20%/month band (3,650 h)"
set logscale xy
set xlabel "mean time between preemptions of one node (hours, log)"
set ylabel "spot cost / on-demand cost"
set xrange [1.5:40000]
set yrange [0.3:10]
set ytics (0.3, 0.4, 0.5, 0.7, 1, 1.5, 2, 3, 5, 10)
set grid
set key top right font ",9"
set arrow 1 from 3650, graph 0 to 3650, graph 1 nohead dt 3 lc rgb "#555555"
nodes = "16 128 1024"
plot 1 with lines lc rgb "black" lw 1 notitle, \
     for [i = 1:3] sprintf("%s/spot-%s.dat", out, word(nodes, i)) using 1:2 with linespoints lw 2 pt 7 ps 0.8 lc rgb colour[i] title word(nodes, i)." nodes", \
     for [i = 1:3] sprintf("%s/spot-%s-cross.dat", out, word(nodes, i)) using 1:2 with points pt 2 ps 2.5 lw 2 lc rgb colour[i] notitle, \
     for [i = 1:3] sprintf("%s/spot-%s-cross.dat", out, word(nodes, i)) using 1:2:3 with labels offset 0, -1.3 font ",9" tc rgb colour[i] notitle

# ---------------------------------------------------------------- spares.png
reset
set terminal pngcairo size 1000, 480 font ",10"
set output dest."/spares.png"
set multiplot layout 1, 2 title "Value of hot spares when a failed node takes 12 h to replace (spares billed on demand; dashed: no repair wait)"
set grid
set xlabel "hot spare nodes"
set key top right font ",9"
set ytics nomirror
set y2tics
set xrange [-0.5:16.5]
set title "128 nodes (1,024 GPUs)"
set ylabel "expected cost (million USD)"
set y2label "expected time to train (days)"
plot out."/spares-128.dat" using 1:3 with linespoints lw 2 pt 7 lc rgb colour[1] title "cost", \
     out."/spares-128.dat" using 1:5 with lines dt 2 lc rgb colour[1] title "cost, no repair wait", \
     out."/spares-128.dat" using 1:2 axes x1y2 with linespoints lw 2 pt 6 lc rgb colour[2] title "time (right)", \
     out."/spares-128.dat" using 1:4 axes x1y2 with lines dt 2 lc rgb colour[2] title "time, no repair wait", \
     out."/spares-128-best.dat" using 1:2 with points pt 3 ps 3 lw 2 lc rgb "black" notitle, \
     out."/spares-128-best.dat" using 1:2:3 with labels left offset 1, 1.2 font ",9" notitle
set title "2,048 nodes (16,384 GPUs)"
set logscale y
set logscale y2
plot out."/spares-2048.dat" using 1:3 with linespoints lw 2 pt 7 lc rgb colour[1] title "cost (log)", \
     out."/spares-2048.dat" using 1:5 with lines dt 2 lc rgb colour[1] title "cost, no repair wait", \
     out."/spares-2048.dat" using 1:2 axes x1y2 with linespoints lw 2 pt 6 lc rgb colour[2] title "time (right, log)", \
     out."/spares-2048.dat" using 1:4 axes x1y2 with lines dt 2 lc rgb colour[2] title "time, no repair wait", \
     out."/spares-2048-best.dat" using 1:2 with points pt 3 ps 3 lw 2 lc rgb "black" notitle, \
     out."/spares-2048-best.dat" using 1:2:3 with labels left offset 1, 1.2 font ",9" notitle
unset multiplot
