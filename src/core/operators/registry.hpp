// The operators, listed once. Adding a global operator: its file in this folder (see
// operator_kit.hpp) and its line here. The registry (all_operators(), `tonekit ops`, the CLI's
// flags, the studio's sliders), the CPU and CUDA map passes, the CPU video path, the tests and
// the benchmarks all read these lists.
#pragma once
#include "core/operators/aces.hpp"
#include "core/operators/agx.hpp"
#include "core/operators/bt2390.hpp"
#include "core/operators/bt2446a.hpp"
#include "core/operators/drago.hpp"
#include "core/operators/drago_local.hpp"
#include "core/operators/exposure_fusion.hpp"
#include "core/operators/hable.hpp"
#include "core/operators/histeq.hpp"
#include "core/operators/linear.hpp"
#include "core/operators/local_laplacian.hpp"
#include "core/operators/log.hpp"
#include "core/operators/mobius.hpp"
#include "core/operators/neutral.hpp"
#include "core/operators/reinhard.hpp"
#include "core/operators/reinhard_local.hpp"
#include "core/operators/reinhard_sat.hpp"
#include "core/operators/spline.hpp"

namespace tonekit::core {

// Global operators: a curve L_w -> L_d from the frame's statistics (operator_kit.hpp).
using GlobalOperators = OperatorList<LinearOperator, LogOperator, DragoOperator, ReinhardOperator, HisteqOperator,
                                     Bt2390Operator, Bt2446aOperator, HableOperator, MobiusOperator, SplineOperator,
                                     AcesOperator, AgxOperator, NeutralOperator>;

// Local operators: their own passes (core/local_settings.hpp, src/cpu/local, src/cuda/local).
using LocalOperators = OperatorList<ReinhardLocalOperator, ReinhardSatOperator, DragoLocalOperator, LocalLaplacianOperator,
                                   ExposureFusionOperator>;

}  // namespace tonekit::core
