// The studio's one call into tone mapping. Everything the page sees (previews, 1:1 crops,
// thumbnails, exports) is rendered here, so moving the studio onto the device pipeline (one
// persistent pipeline per open image and backend) changes this class only.
#pragma once
#include "tonekit/blur.hpp"
#include "tonekit/image.hpp"
#include "tonekit/night.hpp"
#include "tonekit/operators.hpp"
#include "tonekit/status.hpp"
#include "tonekit/temporal.hpp"
#include "tonekit/tonemap.hpp"

namespace tonekit::studio {

struct RenderTimings {
  double glare_ms = 0.0;  // bright-pass blur (0 when glare is off)
  double night_ms = 0.0;  // night vision (0 when it is off)
  double stats_ms = 0.0;  // as tone_map measured them
  double map_ms = 0.0;
  double total_ms = 0.0;  // glare + night + tone_map, wall clock
};

class Renderer {
 public:
  explicit Renderer(Backend backend) : backend_(backend) {}
  Backend backend() const { return backend_; }

  // Glare (when strength > 0), night vision (when on), then tone mapping of `scene`, as
  // `tonekit map` does it: the same
  // calls in the same order, so an export equals the CLI's output byte for byte.
  // `temporal`: one frame of a sequence with temporal adaptation (tone_map_temporal, on the
  // chosen backend): its state before the frame, replaced by the state after it.
  struct Temporal {
    TemporalState* state = nullptr;
    TemporalParams params{};
    double dt = 0.0;
  };
  Status render(const Image& scene, const Params& params, const GlareParams& glare, const NightParams& night,
                OutputFormat format, OutputImage& out, FrameStats* stats, RenderTimings* timings, const Temporal* temporal = nullptr) const;

 private:
  Backend backend_;
};

}  // namespace tonekit::studio
