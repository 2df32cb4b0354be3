#!/usr/bin/env bash
# ncu on reinhard-sat's tile map kernel at 3840x2160 (device `run`, carry $CARRY, default
# .carry-s, with bin/tonekit_local_bench): time, instruction mix (float64, shared memory), pipe
# utilisation, shared-memory wavefronts (one per cycle of the 128-byte shared data path).
set -u
C=${CARRY:-.carry-s}
export LD_LIBRARY_PATH=$PWD/$C/lib:/usr/local/cuda/lib64
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
M=gpu__time_duration.sum,smsp__inst_executed.sum,smsp__sass_thread_inst_executed_op_dadd_pred_on.sum,smsp__sass_thread_inst_executed_op_dfma_pred_on.sum,smsp__sass_thread_inst_executed_op_dmul_pred_on.sum,smsp__inst_executed_op_shared_ld.sum,smsp__inst_executed_op_shared_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,sm__pipe_shared_cycles_active.avg.pct_of_peak_sustained_active,sm__cycles_elapsed.avg,l1tex__data_pipe_lsu_wavefronts_mem_shared.avg.pct_of_peak_sustained_elapsed,smsp__cycles_active.avg
timeout 300 $NCU --kernel-name regex:sat_tile_map --launch-skip ${SKIP:-2} --launch-count 1 --metrics $M \
  $PWD/$C/bin/tonekit_local_bench --profile --only "${ONLY:-tile-local 64x64}" > ${OUT:-/tmp}/ncu_local.log 2>&1
grep -E "sat_tile_map|duration|inst|pct|wavefronts|conflicts|cycles" ${OUT:-/tmp}/ncu_local.log | head -30
