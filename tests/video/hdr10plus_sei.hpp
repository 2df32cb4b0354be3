// HDR10+ (SMPTE ST 2094-40) SEI messages written into an HEVC elementary stream, for the
// end-to-end test of `tonekit video`'s HDR10+ path. It exists because Debian 12's libx265 is
// built without HDR10+ support (`--dhdr10-info` does nothing), so no encoder here can make such
// a clip: the test encodes with libx265 to Annex B (`-f hevc`), then `inject_hdr10plus` puts a
// prefix SEI NAL unit carrying user_data_registered_itu_t_t35 (payloadType 4) with the
// ST 2094-40 application 4 payload before the first slice of every picture. Field order and
// widths are those FFmpeg 5.1's decoder reads (hevc_sei.c: country 0xB5, provider 0x003C,
// oriented code 0x0001, application identifier 4; dynamic_hdr10_plus.c: the rest).
#pragma once
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <utility>
#include <vector>

namespace tonekit::test {

// MSB-first bit writer.
class BitWriter {
 public:
  void put(std::uint32_t value, int bits) {
    for (int i = bits - 1; i >= 0; --i) bit((value >> i) & 1u);
  }
  void bit(unsigned b) {
    if (used_ == 0) bytes_.push_back(0);
    if (b) bytes_.back() |= static_cast<std::uint8_t>(0x80u >> used_);
    used_ = (used_ + 1) % 8;
  }
  bool aligned() const { return used_ == 0; }
  void align_zero() {
    while (!aligned()) bit(0);
  }
  const std::vector<std::uint8_t>& bytes() const { return bytes_; }

 private:
  std::vector<std::uint8_t> bytes_;
  int used_ = 0;  // bits used in the last byte
};

// One frame's ST 2094-40 values (a single window, the whole picture).
struct Hdr10PlusFrame {
  // Linearised R, G, B maxima in 0.1 cd/m^2 (17 bits: at most 13107.1 cd/m^2).
  std::uint32_t maxscl[3] = {10000, 10000, 10000};
  std::uint32_t average_maxrgb = 1000;                // 0.1 cd/m^2
  std::uint32_t targeted_display_max_luminance = 400;  // cd/m^2, 27 bits
  // (percentage 0-100, percentile in 0.1 cd/m^2); at most 15.
  std::vector<std::pair<std::uint8_t, std::uint32_t>> percentiles = {
      {1, 5}, {5, 40}, {10, 100}, {25, 400}, {50, 900}, {75, 2000}, {90, 4000}, {95, 6000}, {99, 9000}};
  std::uint32_t fraction_bright_pixels = 20;  // 1/1000, 10 bits
  // Tone mapping: knee point (12 bits each, /4095) and Bezier anchors (10 bits each, /1023).
  std::uint32_t knee_x = 1500, knee_y = 1800;
  std::vector<std::uint32_t> bezier_anchors = {100, 250, 400, 550, 700, 800, 900, 960, 1000};
};

// The T.35 payload: ITU-T T.35 header, then ST 2094-40 application 4 version 1.
inline std::vector<std::uint8_t> hdr10plus_t35_payload(const Hdr10PlusFrame& f) {
  if (f.percentiles.size() > 15 || f.bezier_anchors.size() > 15) throw std::invalid_argument("at most 15 entries");
  BitWriter w;
  w.put(0xB5, 8);    // itu_t_t35_country_code: United States
  w.put(0x003C, 16);  // itu_t_t35_terminal_provider_code: SMPTE
  w.put(0x0001, 16);  // itu_t_t35_terminal_provider_oriented_code: ST 2094-40
  w.put(4, 8);        // application_identifier
  w.put(1, 8);        // application_version
  w.put(1, 2);        // num_windows
  w.put(f.targeted_display_max_luminance, 27);
  w.put(0, 1);  // targeted_system_display_actual_peak_luminance_flag
  for (std::uint32_t c : f.maxscl) w.put(c, 17);
  w.put(f.average_maxrgb, 17);
  w.put(static_cast<std::uint32_t>(f.percentiles.size()), 4);
  for (const auto& [percentage, percentile] : f.percentiles) {
    w.put(percentage, 7);
    w.put(percentile, 17);
  }
  w.put(f.fraction_bright_pixels, 10);
  w.put(0, 1);  // mastering_display_actual_peak_luminance_flag
  w.put(1, 1);  // tone_mapping_flag
  w.put(f.knee_x, 12);
  w.put(f.knee_y, 12);
  w.put(static_cast<std::uint32_t>(f.bezier_anchors.size()), 4);
  for (std::uint32_t a : f.bezier_anchors) w.put(a, 10);
  w.put(0, 1);  // color_saturation_mapping_flag
  w.align_zero();
  return w.bytes();
}

// RBSP -> NAL unit payload: 0x03 after two zero bytes when the next byte is 0-3.
inline std::vector<std::uint8_t> add_emulation_prevention(const std::vector<std::uint8_t>& rbsp) {
  std::vector<std::uint8_t> out;
  int zeros = 0;
  for (std::uint8_t b : rbsp) {
    if (zeros >= 2 && b <= 3) {
      out.push_back(3);
      zeros = 0;
    }
    out.push_back(b);
    zeros = b == 0 ? zeros + 1 : 0;
  }
  return out;
}

// The whole prefix SEI NAL unit with its 4-byte start code.
inline std::vector<std::uint8_t> hdr10plus_sei_nal(const Hdr10PlusFrame& f) {
  const std::vector<std::uint8_t> payload = hdr10plus_t35_payload(f);
  std::vector<std::uint8_t> rbsp;
  rbsp.push_back(4);  // payloadType: user_data_registered_itu_t_t35
  std::size_t size = payload.size();
  for (; size >= 255; size -= 255) rbsp.push_back(0xFF);
  rbsp.push_back(static_cast<std::uint8_t>(size));
  rbsp.insert(rbsp.end(), payload.begin(), payload.end());
  rbsp.push_back(0x80);  // rbsp_trailing_bits
  std::vector<std::uint8_t> nal = {0, 0, 0, 1, 39 << 1, 1};  // PREFIX_SEI_NUT, layer 0, temporal_id_plus1 1
  const std::vector<std::uint8_t> escaped = add_emulation_prevention(rbsp);
  nal.insert(nal.end(), escaped.begin(), escaped.end());
  return nal;
}

// Inserts `frames[i]`'s SEI before the first VCL NAL unit (nal_unit_type 0-31 with
// first_slice_segment_in_pic_flag set) of access unit `first + i` of an Annex B HEVC stream, in
// decode order (the presentation order when the stream has no B-frames: encode with bframes=0).
// The access units before `first` and past the end of `frames` get none. Returns the new
// stream; throws when the stream has no pictures.
inline std::vector<std::uint8_t> inject_hdr10plus(const std::vector<std::uint8_t>& annexb,
                                                  const std::vector<Hdr10PlusFrame>& frames, std::size_t first = 0) {
  if (frames.empty()) throw std::invalid_argument("no HDR10+ frames given");
  // Start of each start code (00 00 01, or 00 00 00 01 counted from its first zero).
  std::vector<std::size_t> starts;
  for (std::size_t i = 0; i + 3 <= annexb.size(); ++i)
    if (annexb[i] == 0 && annexb[i + 1] == 0 && annexb[i + 2] == 1) {
      starts.push_back(i > 0 && annexb[i - 1] == 0 ? i - 1 : i);
      i += 2;
    }
  std::vector<std::uint8_t> out;
  std::size_t copied = 0, picture = 0;
  for (std::size_t s : starts) {
    const std::size_t header = s + (annexb[s + 2] == 1 ? 3 : 4);
    if (header + 2 >= annexb.size()) continue;
    const int type = (annexb[header] >> 1) & 0x3F;
    const bool first_slice = type <= 31 && (annexb[header + 2] & 0x80) != 0;
    if (!first_slice) continue;
    const std::size_t n = picture++;
    if (n < first || n - first >= frames.size()) continue;
    out.insert(out.end(), annexb.begin() + static_cast<std::ptrdiff_t>(copied),
               annexb.begin() + static_cast<std::ptrdiff_t>(s));
    const std::vector<std::uint8_t> sei = hdr10plus_sei_nal(frames[n - first]);
    out.insert(out.end(), sei.begin(), sei.end());
    copied = s;
  }
  if (picture == 0) throw std::invalid_argument("no HEVC pictures in the stream");
  out.insert(out.end(), annexb.begin() + static_cast<std::ptrdiff_t>(copied), annexb.end());
  return out;
}

}  // namespace tonekit::test
