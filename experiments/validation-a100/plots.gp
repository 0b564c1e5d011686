# Validation plots from validate.py's output. Call with
#   gnuplot -e "out='OUT_DIR'; dest='DEST_DIR'; name='A100'" plots.gp
# Writes DEST/errors.png (error per row, with each table's threshold) and DEST/parity.png
# (predicted vs published per table, y = x and a +-10% band).
load out."/plotvars.gp"
dat = out."/errors.dat"

# ---------------------------------------------------------------- errors.png
set terminal pngcairo size 900, (140 + 26 * nrows) font ",10"
set output dest."/errors.png"
set title sprintf("%s validation: prediction error per published row (dashed: the table's limit per row)", name)
set xlabel "error of the prediction: predicted / published - 1 (%)"
set style fill solid 0.75 border -1
set grid xtics
set ytics nomirror font ",9"
set yrange [0.4 : nrows + 0.6]
set xrange [-emax:emax]
xt = (emax > 16 ? 4 : 2)
set xtics xt
set bars 0
set key off
plot dat using ($3 / 2):1:($3 < 0 ? $3 : 0):($3 < 0 ? 0 : $3):($1 - 0.38):($1 + 0.38):($4 + 1):ytic(2) \
         with boxxyerror lc variable, \
     dat using 5:1:($1 - 0.5):($1 + 0.5) with yerrorbars pt 0 lc rgb "#c0392b" dt 2 lw 1.5, \
     dat using (-$5):1:($1 - 0.5):($1 + 0.5) with yerrorbars pt 0 lc rgb "#c0392b" dt 2 lw 1.5, \
     dat using ($3 >= 0 ? $3 + 0.3 : NaN):1:(sprintf("%+.1f%%", $3)) with labels left font ",9", \
     dat using ($3 < 0 ? $3 - 0.3 : NaN):1:(sprintf("%+.1f%%", $3)) with labels right font ",9", \
     0 with lines lc black lw 1

# ---------------------------------------------------------------- parity.png
reset
set terminal pngcairo size (430 * ntables), 450 font ",10"
set output dest."/parity.png"
set multiplot layout 1, ntables title sprintf("%s validation: predicted vs published (band: +-10%%)", name)
set key top left font ",9"
set style fill transparent solid 0.18 noborder
set grid
do for [i = 1:ntables] {
    lo = value("lo".i); hi = value("hi".i)
    # Labels go right of the points in the lower half of the range, left of them above it.
    mid = value("log".i) ? sqrt(lo * hi) : (lo + hi) / 2
    unset logscale
    if (value("log".i)) { set logscale xy }
    set xrange [lo:hi]; set yrange [lo:hi]
    set size ratio -1
    set title value("tname".i)
    set xlabel "published (".value("tmetric".i).")"
    set ylabel "predicted"
    set samples 200
    plot '+' using 1:($1 * 0.9):($1 * 1.1) with filledcurves lc rgb "#4daf4a" title "+-10%", \
         x with lines lc black dt 2 title "y = x", \
         sprintf("%s/parity-%d.dat", out, i - 1) using 1:2 with points pt 7 ps 1.1 lc i title "rows", \
         '' using 1:($1 <= mid ? $2 : NaN):3 with labels offset 0.8, -0.6 left font ",8" notitle, \
         '' using 1:($1 > mid ? $2 : NaN):3 with labels offset -0.8, 0.6 right font ",8" notitle
}
unset multiplot
