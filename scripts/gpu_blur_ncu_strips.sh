#!/usr/bin/env bash
# ncu on the strip separable kernel at 3840x2160 RGBA float, sigma 6 (device `run`, carry a folder
# with bin/tonekit_blur_bench and lib/, named by CARRY): speed of light, occupancy, warp stalls.
set -u
C=${CARRY:-.carry}
export LD_LIBRARY_PATH=$PWD/$C/lib:/usr/local/cuda/lib64
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
timeout 300 $NCU --kernel-name regex:'sep_strip' --launch-skip ${SKIP:-170} --launch-count 1 \
  --section SpeedOfLight --section Occupancy --section MemoryWorkloadAnalysis --section WarpStateStats \
  --section SchedulerStats --section ComputeWorkloadAnalysis --section LaunchStats \
  --metrics dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum,l1tex__t_bytes.sum,smsp__inst_executed.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,smsp__cycles_active.avg,$(echo smsp__average_warps_issue_stalled_{barrier,long_scoreboard,short_scoreboard,mio_throttle,math_pipe_throttle,wait,not_selected,dispatch_stall,lg_throttle,selected,no_instruction,membar,sleeping,branch_resolving,drain,imc_miss,tex_throttle,misc}_per_issue_active.ratio | tr ' ' ',') \
  $PWD/$C/bin/tonekit_blur_bench --only ${V:-separable-strips} --iters 20 > ${OUT:-/tmp}/ncu_strips.log 2>&1
grep -vE "^==PROF==|^ +-+ +-+" ${OUT:-/tmp}/ncu_strips.log | grep -E "stalled|sep_|Duration|Throughput|bytes|inst_executed|Occupancy|Stall|Warp Cycles|Issued|Eligible|Active Warps|bank|Registers|Block Limit|Grid Size|Pipe|cycles" | head -70
