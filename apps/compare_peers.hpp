// The peers `tonekit compare` runs beside tonekit's operators: other tone-mapping programs found
// on the machine at run time (pfstools' pfstmo, OpenCV through python3-opencv, FFmpeg's tonemap
// filter through zscale). Each is one shell command on files; a peer that is not installed is
// reported as missing, never silently dropped.
#pragma once
#include <string>
#include <vector>

namespace tonekit::cli {

struct Peer {
  std::string id;      // column name, e.g. "pfstmo drago03"
  std::string family;  // "pfstmo", "opencv", "ffmpeg"
  std::string note;    // what the command does beyond the peer's defaults
};

const std::vector<Peer>& all_peers();
// `s` as one single-quoted shell word.
std::string shell_quoted(const std::string& s);
// Whether the peer's programs are installed (probed once per family per run).
bool peer_available(const Peer& peer);
// The exact command (run by bash -o pipefail in the report folder): reads `input_pfm` (or, for FFmpeg,
// `exposed_exr`: the scene pre-scaled to key 0.18, as its curves have no exposure control) and
// writes the 8-bit PNG `output`.
std::string peer_command(const Peer& peer, const std::string& input_pfm, const std::string& exposed_exr,
                         const std::string& output);

}  // namespace tonekit::cli
