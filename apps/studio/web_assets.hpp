// The page's files (apps/studio/web/*), embedded at build time by embed_web.cmake so the binary
// serves them from anywhere, with nothing installed beside it.
#pragma once
#include <cstddef>
#include <string_view>

namespace tonekit::studio {

struct WebAsset {
  std::string_view name;  // file name under web/, e.g. "app.js"
  std::string_view content_type;
  std::string_view bytes;
};

// Exact name match only: no paths, so nothing outside the embedded set can be asked for.
const WebAsset* find_web_asset(std::string_view name);

}  // namespace tonekit::studio
