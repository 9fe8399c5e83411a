set terminal svg size 960,440 font 'sans,11'
set output 'docs/crossover-128x8.svg'
set multiplot layout 1,2 title 'NCCL algorithms on 128 nodes x 8 (cluster-fattree 128x8x8x4), ppsim, every run verified; right of the dashed line: affine extension'
set logscale x 2
set logscale y 10
set format x '%L'
set format y '%g'
set xlabel 'log2 n (bytes, nccl-tests)'
set ylabel 'algbw (GB/s, model)'
set key top left
set title 'allreduce'
set arrow 1 from 2097152, graph 0 to 2097152, graph 1 nohead dt 2
plot 'bench/out/crossover_allreduce.dat' using 1:2 with linespoints pt 1 ps 0.5 title 'ring', 'bench/out/crossover_allreduce.dat' using 1:3 with linespoints pt 2 ps 0.5 title 'tree', 'bench/out/crossover_allreduce.dat' using 1:4 with linespoints pt 3 ps 0.5 title 'NVLS', 'bench/out/crossover_allreduce.dat' using 1:5 with linespoints pt 4 ps 0.5 title 'NVLS-tree', 'bench/out/crossover_allreduce.dat' using 1:6 with linespoints pt 5 ps 0.5 title 'CollNet', 'bench/out/crossover_allreduce.dat' using 1:7 with linespoints pt 6 ps 0.5 title 'hierarchical'
set title 'allgather'
set arrow 1 from 1048576, graph 0 to 1048576, graph 1 nohead dt 2
plot 'bench/out/crossover_allgather.dat' using 1:2 with linespoints pt 1 ps 0.5 title 'ring', 'bench/out/crossover_allgather.dat' using 1:3 with linespoints pt 2 ps 0.5 title 'PAT', 'bench/out/crossover_allgather.dat' using 1:4 with linespoints pt 3 ps 0.5 title 'NVLS', 'bench/out/crossover_allgather.dat' using 1:5 with linespoints pt 4 ps 0.5 title 'CollNet'
unset multiplot
