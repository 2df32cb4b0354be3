#include "tonekit/image.hpp"

namespace tonekit {

const char* pixel_type_name(PixelType t) {
  switch (t) {
    case PixelType::f32: return "float";
    case PixelType::f16: return "half";
    case PixelType::u8: return "uint8";
    case PixelType::u16: return "uint16";
  }
  return "?";
}

}  // namespace tonekit
