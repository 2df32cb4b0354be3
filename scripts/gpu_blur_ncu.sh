#!/usr/bin/env bash
# ncu on the separable blur's two passes at 3840x2160 RGBA float, sigma 6 (device `run`, carry a
# folder with bin/tonekit_blur_bench and lib/): per-kernel duration, DRAM and L2 traffic.
set -u
C=${CARRY:-.carry}
export LD_LIBRARY_PATH=$PWD/$C/lib:/usr/local/cuda/lib64
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
timeout 200 $NCU --kernel-name regex:'sep_(rows|cols)_kernel' --launch-skip 330 --launch-count 2 \
  --section SpeedOfLight --section Occupancy --section MemoryWorkloadAnalysis \
  --metrics dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum,l1tex__t_bytes.sum,smsp__inst_executed.sum \
  $PWD/$C/bin/tonekit_blur_bench --only separable --iters 20 > ${OUT:-/tmp}/ncu_blur.log 2>&1
grep -E "sep_|Duration|Throughput|bytes|inst_executed|Achieved Occupancy|Hit Rate" ${OUT:-/tmp}/ncu_blur.log | head -50
