// The look and tuning fields that GlPassConfig and VulkanPassConfig share with ToneMapperConfig
// (same names): one copy for both passes.
#pragma once
#include "tonekit/tone_mapper.hpp"

namespace tonekit::interop {

template <class PassConfig>
void copy_look(const PassConfig& from, ToneMapperConfig& to) {
  to.params = from.params;
  to.glare = from.glare;
  to.temporal = from.temporal;
  to.temporal_params = from.temporal_params;
  to.tuning = from.tuning;
  to.timings = from.timings;
}

}  // namespace tonekit::interop
