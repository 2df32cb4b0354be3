// One descriptor function per operator file; registry.cpp lists them once.
#pragma once
#include "tonekit/operators.hpp"

namespace tonekit::core {
const OperatorDesc& linear_operator();
const OperatorDesc& log_operator();
const OperatorDesc& drago_operator();
const OperatorDesc& reinhard_operator();
const OperatorDesc& histeq_operator();
const OperatorDesc& reinhard_local_operator();
const OperatorDesc& reinhard_sat_operator();
const OperatorDesc& drago_local_operator();
// The robust peak (issue 14): every operator whose curve reads L_max takes it (core/robust_peak.hpp).
ParamDesc peak_percentile_param();
}  // namespace tonekit::core
