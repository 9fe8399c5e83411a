set terminal svg size 900,420 font 'sans,11'
set output 'docs/crossover-128x8.svg'
set multiplot layout 1,2 title 'NCCL algorithms on 128 nodes x 8 (cluster-fattree 128x8x8x4), ppsim, every run verified'
set logscale x 2
set logscale y 10
set xlabel 'n (bytes, nccl-tests)'
set ylabel 'algbw (GB/s, model)'
set key top left
set format x '2^{%L}'
set title 'allreduce'
plot 
set title 'allgather'
plot 
unset multiplot
