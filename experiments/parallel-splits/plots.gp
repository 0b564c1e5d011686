# Parallel-splits heat maps from analyze.py's output. Call with
#   gnuplot -e "out='OUT_DIR'; dest='DEST_DIR'" plots.gp
# Writes DEST/mfu.png (best over microbatch: plain 1F1B, and 1F1B or interleaved) and
# DEST/mfu-by-microbatch.png (one panel per microbatch).
load out."/plotvars.gp"
ntp = words(tps); npp = words(pps)

set palette defined (0 "#440154", 1 "#3b528b", 2 "#21918c", 3 "#5ec962", 4 "#fde725")
set cbrange [floor(mfu_lo / 5) * 5 : ceil(mfu_hi / 5) * 5]
set cblabel "MFU (%)"
set xrange [-0.5 : npp - 0.5]
set yrange [-0.5 : ntp - 0.5]
set xtics () ; set ytics ()
do for [i = 1:npp] { set xtics add (word(pps, i) i - 1) }
do for [i = 1:ntp] { set ytics add (word(tps, i) i - 1) }
set xlabel "pipeline parallel size (pp)"
set ylabel "tensor parallel size (tp)"
set tics scale 0
unset key

# One panel: colour for cells that fit, hatched grey for out-of-memory ones, blank otherwise.
panel(tag) = sprintf("%s/heat-%s.dat", out, tag)
oom(tag) = sprintf("%s/oom-%s.dat", out, tag)
lab(tag) = sprintf("%s/label-%s.dat", out, tag)

set terminal pngcairo size 1250, 520 font ",10"
set output dest."/mfu.png"
set multiplot layout 1, 2 title "GPT-3 175B on 1,024 A100 80GB, global batch 1536, bf16, selective recompute, ZeRO 1: MFU by tensor x pipeline split\n(best over microbatch 1, 2, 4; hatched: out of memory, with the smallest need; blank: invalid layout, dp x microbatch does not divide the batch)"
set title "plain 1F1B"
plot panel("best1f1b") using 1:2:3 with image, \
     oom("best1f1b") using 1:2:(0.5):(0.5) with boxxyerror fs pattern 4 border lc rgb "#888888" lc rgb "#888888", \
     lab("best1f1b") using 1:2:3:4 with labels font ",8" tc rgb variable
set title "1F1B or interleaved (VP = virtual stages), whichever is faster"
plot panel("best") using 1:2:3 with image, \
     oom("best") using 1:2:(0.5):(0.5) with boxxyerror fs pattern 4 border lc rgb "#888888" lc rgb "#888888", \
     lab("best") using 1:2:3:4 with labels font ",8" tc rgb variable
unset multiplot

set terminal pngcairo size 1500, 480 font ",10"
set output dest."/mfu-by-microbatch.png"
set multiplot layout 1, 3 title "GPT-3 175B on 1,024 A100 80GB: MFU by tensor x pipeline split for each microbatch size (best of 1F1B and interleaved; hatched: out of memory; blank: invalid)"
do for [mb in "1 2 4"] {
    set title "microbatch ".mb
    plot panel("mb".mb) using 1:2:3 with image, \
         oom("mb".mb) using 1:2:(0.5):(0.5) with boxxyerror fs pattern 4 border lc rgb "#888888" lc rgb "#888888", \
         lab("mb".mb) using 1:2:3:4 with labels font ",8" tc rgb variable
}
unset multiplot
