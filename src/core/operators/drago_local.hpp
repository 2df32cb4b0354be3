// Drago 2003 with Qian 2013's pixel-centred local average (local; core/local_settings.hpp).
#pragma once
#include "core/operators/operator_kit.hpp"

namespace tonekit::core {

struct DragoLocalOperator {
  static const OperatorDesc& descriptor() {
    static const OperatorDesc desc{
        "drago-local",
        "Drago adaptive logarithmic mapping with a pixel-centred local adaptation luminance (Qian)",
        "Qian Yin-ling, Fast tone mapping operator implementation based on GPUs, Application "
        "Research of Computers 30(2), 2013 (Drago GPU seed, section "
        "2.2, Eq 3-4, 7-8); Drago, Myszkowski, Annen, Chiba, Computer Graphics Forum 22(3), 2003",
        "L_wa(x, y) = mean of L_w over the n x n window centred on the pixel, by separable running "
        "sums (column means, Eq 7, then row means, Eq 8); border pixels take the nearest interior "
        "average (Qian step c). L' = e L_w / L_wa, L'_max = e L_wmax / L_wa; L_d = (0.01 L_dmax / "
        "log10(L'_max + 1)) log(L' + 1) / log(2 + 8 (L_w / L_wmax)^(log b / log 0.5)). Raises "
        "local contrast over global Drago; small windows exaggerate texture.",
        Locality::local,
        {
            {"bias", 0.85, 0.5, 1.0, "b: bias power; 0.7-0.9 as the paper recommends"},
            {"ld_max", 100.0, 1.0, 1000.0, "L_dmax: display maximum luminance in cd/m^2"},
            {"exposure", 1.0, 0.01, 100.0, "e: exposure multiplier (Qian 2013 Eq 4)"},
            {"window", 7.0, 1.0, 63.0,
             "n: side of the pixel-centred averaging window; even values use n + 1 (the window is "
             "odd); clipped per axis to the largest odd size that fits the image",
             true},
            peak_percentile_param(),
        }};
    return desc;
  }
};

}  // namespace tonekit::core
