// Reinhard 2002 dodging-and-burning with summed-area-table box filters (local; core/local_settings.hpp).
#pragma once
#include "core/operators/operator_kit.hpp"

namespace tonekit::core {

struct ReinhardSatOperator {
  static const OperatorDesc& descriptor() {
    static const OperatorDesc desc{
        "reinhard-sat",
        "Reinhard dodging-and-burning with summed-area-table box filters (Slomp & Oliveira)",
        "Slomp, Oliveira, Real-Time "
        "Photographic Local Tone Reproduction Using Summed-Area Tables, CGI 2008 (thesis seed ch. "
        "4.2.3, 5.1, Eq 4.8, Algorithm 7)",
        "Reinhard 2002's scale search (Eq 4.5-4.7) with the Gaussian responses replaced by box "
        "means (Eq 4.8) read in O(1) from a summed-area table of the scaled luminance: centred "
        "boxes of 1, 3, 5, 7, 11, 17, 25, 39 px (thesis Listing 6.4), edge pixels replicated at the "
        "borders (clamp-to-edge, like the Gaussian reference); the "
        "s of 2^phi alpha / s^2 is the centre box's width. epsilon defaults to 0.025 for the box's "
        "flat weights. `scales` trades detail for speed (thesis 7.5). Square local regions instead "
        "of round ones; a fraction of the cost of the Gaussian pyramid.",
        Locality::local,
        {
            {"key", 0.18, 0.001, 1.0, "alpha: the key the log-average maps to (Eq 4.2)"},
            {"phi", 8.0, 1.0, 20.0, "phi: sharpening; larger values tolerate more centre-surround difference in the darks (Eq 4.5)"},
            {"epsilon", 0.025, 0.0, 1.0, "epsilon: activity threshold of the scale search (Eq 4.6); 0 = the pixel itself, i.e. the global Eq 4.3"},
            {"scales", 8.0, 1.0, 8.0, "box levels searched (1 .. 8: 1, 3, 5, 7, 11, 17, 25, 39 px); 1 = the global Eq 4.3; fewer is faster with less detail (thesis 7.5)", true},
            {"sat", 0.0, 0.0, 4.0,
             "summed-area table algorithm: 0 = auto (fastest; on the GPU a float64 table per 32x32 tile "
             "plus its 19 px halo, built in shared memory), 1 = recursive doubling (Hensley 2005), "
             "2 = Blelloch work-efficient scan, 3 = scan-transpose-scan, 4 = decoupled look-back; on "
             "the CPU every id builds the same float64 table",
             true},
        }};
    return desc;
  }
};

}  // namespace tonekit::core
