#include <algorithm>
#include <cctype>

#include "tonekit/io.hpp"

namespace tonekit::io {

OutputKind output_kind_for(const std::string& path) {
  const auto slash = path.find_last_of('/');
  const auto dot = path.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return OutputKind::unknown;
  std::string extension = path.substr(dot + 1);
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (extension == "png") return OutputKind::png;
  if (extension == "jpg" || extension == "jpeg") return OutputKind::jpeg;
  if (extension == "exr") return OutputKind::exr;
  if (extension == "hdr" || extension == "pic" || extension == "rgbe") return OutputKind::hdr;
  if (extension == "pfm") return OutputKind::pfm;
  return OutputKind::unknown;
}

}  // namespace tonekit::io
