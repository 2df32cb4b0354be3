# The blur speed study on the H100 (issue 5 section 3): bench/plots/*.dat from
# tonekit_blur_bench. Render: gnuplot bench/plots/blur_speed.gp (writes blur_speed_h100.png).
set terminal pngcairo size 1400,560 font ",10"
set output "blur_speed_h100.png"
set multiplot layout 1,2 title "tonekit blur methods, H100, RGBA float (median of 20, CUDA events)"
set logscale xy
set grid
set key outside right top
set ylabel "ms per blur"
set xlabel "sigma (1024x1024)"
set title "vs sigma"
plot for [i=2:14] "blur_sigma_h100.dat" using 1:i with linespoints title columnhead(i) noenhanced
set xlabel "megapixels (sigma 6)"
set title "vs resolution (1024x1024 .. 7680x4320)"
plot for [i=2:14] "blur_resolution_h100.dat" using 1:i with linespoints title columnhead(i) noenhanced
unset multiplot
