# Cluster-sizing plots from analyze.py's output. Call with
#   gnuplot -e "out='OUT_DIR'; dest='DEST_DIR'" plots.gp
# Writes DEST/pareto.png, DEST/bill.png and DEST/deadline.png.
load out."/plotvars.gp"
nsys = words(systems)
array colour[8] = ["#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e", "#e6ab02", "#a6761d", "#666666"]

# ---------------------------------------------------------------- pareto.png
set terminal pngcairo size 900, 640 font ",10"
set output dest."/pareto.png"
set title "Llama 3 70B on 2T tokens: cost vs expected time to train, lower-left front per system and pricing offered\n(every layout searched; failures, restarts and spot preemptions included; list prices; labels: nodes)"
set logscale xy
set xlabel "expected time to train (days, log)"
set ylabel "expected cost (million USD, log)"
set xrange [1.5:300]
set yrange [0.6:11]
set xtics (2, 3, 5, 7, 10, 14, 20, 30, 45, 60, 90, 120, 200)
set ytics (0.8, 1, 1.25, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10)
set grid
set key inside right bottom font ",9" box opaque width 1
set arrow 1 from deadline, graph 0 to deadline, graph 1 nohead dt 3 lc rgb "#555555"
set label 1 sprintf("deadline %g d", deadline) at deadline, graph 0.97 right offset -0.5, 0 font ",9"
# Only the offered system x pricing fronts exist (plotvars.gp lists them); the pricings a
# system does not offer get a legend line of their own.
plot for [i = 1:nfronts] out."/".front_file[i] \
        using 1:2 with linespoints lw 2 dt front_dt[i] pt front_pt[i] ps 0.85 \
        lc rgb colour[front_colour[i]] title front_title[i], \
     for [i = 1:nfronts] out."/".front_file[i] \
        using 1:2:3 with labels offset 0, front_labeloff[i] font ",7" tc rgb colour[front_colour[i]] notitle, \
     out."/answer.dat" using 1:2 with points pt 3 ps 3 lw 2 lc rgb "black" title sprintf("the answer (%g d, 90%% sure)", deadline), \
     for [i = 1:nnotoffered] NaN with lines lc rgb "white" title notoffered[i]

# ---------------------------------------------------------------- bill.png
reset
set terminal pngcairo size 900, 600 font ",10"
set output dest."/bill.png"
set title sprintf("The answer's bill by category, and where each system's best setup (%g d, 90%% sure) spends its money", deadline)
set style data histograms
set style histogram rowstacked
set style fill solid 0.85 border -1
set boxwidth 0.6
set ylabel "expected cost (million USD)"
set key inside left top font ",9" invert
set grid y
set xtics nomirror
set xtics font ",8"
set yrange [0:*]
set key autotitle columnhead
set bmargin 5
plot for [i = 2:nbillcols + 1] out."/bill.dat" using i:xtic(1) lc rgb word(billcolours, i - 1), \
     out."/bill.dat" using ($0):(column(nbillcols + 2)):(sprintf("$%.2fM, %.0f d", column(nbillcols + 2), column(nbillcols + 3))) \
        with labels offset 0, 0.8 font ",9" notitle

# ---------------------------------------------------------------- deadline.png
reset
set terminal pngcairo size 1000, 600 font ",10"
set output dest."/deadline.png"
set title "How the answer moves with the deadline (done in time with probability 0.9; list prices)\nlines: each system's cheapest front point within the deadline (expected time); points: the sweep's answer"
set logscale xy
set xlabel "deadline (days, log)"
set ylabel "expected cost (million USD, log)"
set xrange [1.5:300]
set yrange [1:11]
set ytics (1, 1.25, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10)
set xtics (2, 3, 5, 7, 10, 14, 21, 30, 60, 90, 180)
set grid
set key top right font ",9"
plot for [i = 1:nsys] out."/deadline-fronts.dat" using 1:(column(i + 1)) with steps lw 2 lc rgb colour[i] title sys_title[i], \
     out."/deadlines.dat" using 1:2 with points pt 7 ps 1.4 lc rgb "black" title "the sweep's answer", \
     out."/deadlines.dat" using 1:($2 * $5):4 with labels font ",8" notitle
