// Peer tone mappers for `tonekit compare` (see compare_peers.hpp). The display encodings follow
// each peer's documented use: pfstmo output through `pfsgamma -g 2.2` (its manual pages'
// pipelines), OpenCV's Tonemap classes with their gamma 2.2 and a scale to 8 bits, FFmpeg's
// tonemap curves between zscale conversions to BT.709.
#include "compare_peers.hpp"

#include <cstdlib>
#include <map>

namespace tonekit::cli {
namespace {

// The Debian python3-opencv module lives in the system interpreter, not in a user's pyenv.
const char* python() { return std::getenv("TONEKIT_PYTHON") ? std::getenv("TONEKIT_PYTHON") : "/usr/bin/python3"; }

std::string suffix_after(const std::string& id, const std::string& family) { return id.substr(family.size() + 1); }

}  // namespace

std::string shell_quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

const std::vector<Peer>& all_peers() {
  static const std::vector<Peer> peers = {
      {"pfstmo reinhard02", "pfstmo", "global photographic operator, pfstmo defaults"},
      {"pfstmo reinhard02 -s", "pfstmo", "local (dodging and burning) variant"},
      {"pfstmo drago03", "pfstmo", "pfstmo defaults"},
      {"pfstmo mantiuk06", "pfstmo", "pfstmo defaults"},
      {"pfstmo fattal02", "pfstmo", "pfstmo defaults"},
      {"opencv drago", "opencv", "cv2.createTonemapDrago(gamma 2.2)"},
      {"opencv reinhard", "opencv", "cv2.createTonemapReinhard(gamma 2.2) (Reinhard-Devlin 2005)"},
      {"opencv mantiuk", "opencv", "cv2.createTonemapMantiuk(gamma 2.2)"},
      {"ffmpeg hable", "ffmpeg", "input pre-exposed to key 0.18 (the curves have no exposure control)"},
      {"ffmpeg reinhard", "ffmpeg", "input pre-exposed to key 0.18 (the curves have no exposure control)"},
      {"ffmpeg mobius", "ffmpeg", "input pre-exposed to key 0.18 (the curves have no exposure control)"},
  };
  return peers;
}

bool peer_available(const Peer& peer) {
  static std::map<std::string, bool> probed;
  auto it = probed.find(peer.family);
  if (it != probed.end()) return it->second;
  std::string probe;
  if (peer.family == "pfstmo")
    probe = "command -v pfsinpfm && command -v pfsgamma && command -v pfsout && command -v pfstmo_reinhard02 && "
            "command -v pfstmo_drago03 && command -v pfstmo_mantiuk06 && command -v pfstmo_fattal02";
  else if (peer.family == "opencv")
    probe = std::string(python()) + " -c 'import cv2, numpy'";
  else
    probe = "ffmpeg -hide_banner -filters 2>/dev/null | grep -q zscale";
  const bool ok = std::system(("(" + probe + ") > /dev/null 2>&1").c_str()) == 0;
  probed[peer.family] = ok;
  return ok;
}

std::string peer_command(const Peer& peer, const std::string& input_pfm, const std::string& exposed_exr,
                         const std::string& output) {
  if (peer.family == "pfstmo") {
    const std::string op = suffix_after(peer.id, "pfstmo");  // "drago03", "reinhard02 -s"
    return "pfsinpfm " + shell_quoted(input_pfm) + " | pfstmo_" + op + " | pfsgamma -g 2.2 | pfsout " + shell_quoted(output);
  }
  if (peer.family == "opencv") {
    std::string cls = suffix_after(peer.id, "opencv");
    cls[0] = static_cast<char>(cls[0] - 'a' + 'A');
    // Exit status 3 when the operator returns NaN, so that the report shows it as such.
    return std::string(python()) +
           " -c 'import sys, cv2, numpy as np; i = cv2.imread(sys.argv[1], cv2.IMREAD_ANYDEPTH | cv2.IMREAD_ANYCOLOR); "
           "o = cv2.createTonemap" + cls + "(2.2).process(i); "
           "sys.exit(3) if np.isnan(o).any() else cv2.imwrite(sys.argv[2], np.clip(o * 255 + 0.5, 0, 255).astype(np.uint8))' " +
           shell_quoted(input_pfm) + " " + shell_quoted(output);
  }
  const std::string curve = suffix_after(peer.id, "ffmpeg");
  return "ffmpeg -hide_banner -loglevel error -y -i " + shell_quoted(exposed_exr) +
         " -vf 'zscale=tin=linear:t=linear:npl=100,format=gbrpf32le,tonemap=tonemap=" + curve +
         ":desat=0,zscale=t=bt709:m=bt709:r=full,format=rgb24' -frames:v 1 " + shell_quoted(output);
}

}  // namespace tonekit::cli
