#include "video/video_input.hpp"

extern "C" {
#include <libavutil/hwcontext.h>
}

#include <cstdio>

namespace tonekit::video {
namespace {

// Warnings about corrupt data: one line each, and no flood from a badly damaged file.
constexpr long long kMaxCorruptionWarnings = 10;
// Packets after a warning whose errors count as the same damage: a frame-threaded decoder returns
// a packet's error up to its thread count later (at most 16 in FFmpeg's automatic choice), and
// the frames that referenced the damaged one fail within a GOP's reach.
constexpr long long kThreadDelayPackets = 16;

// The decoder offers its formats in order of preference; CUDA when the hwaccel can take the
// stream, else the software format FFmpeg would choose.
AVPixelFormat prefer_cuda(AVCodecContext* c, const AVPixelFormat* formats) {
  for (const AVPixelFormat* f = formats; *f != AV_PIX_FMT_NONE; ++f)
    if (*f == AV_PIX_FMT_CUDA) return *f;
  return avcodec_default_get_format(c, formats);
}

bool has_cuda_hwaccel(const AVCodec& codec) {
  for (int i = 0;; ++i) {
    const AVCodecHWConfig* c = avcodec_get_hw_config(&codec, i);
    if (!c) return false;
    if ((c->methods & AV_CODEC_HW_CONFIG_METHOD_HW_DEVICE_CTX) && c->device_type == AV_HWDEVICE_TYPE_CUDA) return true;
  }
}

// NVDEC through FFmpeg's CUDA device on the device's primary context ("primary_ctx"): the same
// context the CUDA runtime, and so tonekit's ToneMapper, uses on that device, so the decoded
// surfaces' device pointers are valid for the mapper's kernels with no copy and no context
// switch. Empty on success, else why not.
std::string attach_nvdec(AVCodecContext& c, const AVCodec& codec) {
  if (!has_cuda_hwaccel(codec)) return "FFmpeg has no NVDEC path for " + std::string(codec.name);
  AVDictionary* options = nullptr;
  av_dict_set(&options, "primary_ctx", "1", 0);
  AVBufferRef* device = nullptr;
  const int r = av_hwdevice_ctx_create(&device, AV_HWDEVICE_TYPE_CUDA, nullptr, options, 0);
  av_dict_free(&options);
  take_decoder_error();
  if (r < 0) return "no CUDA device for FFmpeg's decoder (" + av_error_text(r) + ")";
  c.hw_device_ctx = device;  // the codec context owns the reference now
  c.get_format = prefer_cuda;
  c.thread_count = 1;  // the hwaccel decodes on the GPU; frame threads only add latency
  // Surfaces beyond the decoder's references: the frames the device mapper keeps in flight
  // (stream::kDeviceFramesInFlight) plus the one being decoded.
  c.extra_hw_frames = 4;
  return {};
}

}  // namespace

Result<std::unique_ptr<VideoInput>> VideoInput::open(const std::string& path, bool nvdec, std::string* nvdec_note) {
  std::unique_ptr<VideoInput> in(new VideoInput);
  in->path_ = path;
  AVFormatContext* fc = nullptr;
  if (int r = avformat_open_input(&fc, path.c_str(), nullptr, nullptr); r < 0) {
    // The demuxer's own words say more ("moov atom not found": an MP4 cut before its index).
    const std::string said = take_decoder_error();
    take_demuxer_end_note();
    if (r == AVERROR(ENOENT)) return Status{StatusCode::bad_input, path + ": no such file"};
    return Status{StatusCode::bad_input,
                  path + ": not a media file FFmpeg can read (" + (said.empty() ? av_error_text(r) : said) + ")"};
  }
  in->format_.reset(fc);
  if (int r = avformat_find_stream_info(fc, nullptr); r < 0)
    return Status{StatusCode::bad_input, path + ": cannot read the streams' parameters (" + av_error_text(r) + ")"};
  const AVCodec* codec = nullptr;
  const int index = av_find_best_stream(fc, AVMEDIA_TYPE_VIDEO, -1, -1, &codec, 0);
  if (index == AVERROR_STREAM_NOT_FOUND) return Status{StatusCode::bad_input, path + ": has no video stream"};
  if (index < 0 || !codec) {
    const AVCodecParameters* par = index >= 0 ? fc->streams[index]->codecpar : nullptr;
    for (unsigned i = 0; !par && i < fc->nb_streams; ++i)
      if (fc->streams[i]->codecpar->codec_type == AVMEDIA_TYPE_VIDEO) par = fc->streams[i]->codecpar;
    const char* name = par ? avcodec_get_name(par->codec_id) : "?";
    return Status{StatusCode::unsupported, path + ": FFmpeg has no decoder for its video codec (" + std::string(name) + ")"};
  }
  in->video_index_ = index;
  AVStream* st = fc->streams[index];
  in->decoder_.reset(avcodec_alloc_context3(codec));
  if (!in->decoder_) return Status{StatusCode::out_of_memory, "cannot allocate a decoder"};
  if (int r = avcodec_parameters_to_context(in->decoder_.get(), st->codecpar); r < 0)
    return av_status(StatusCode::bad_input, path + ": video stream parameters", r);
  in->decoder_->pkt_timebase = st->time_base;
  // Frame and slice threads on every core: the decoder runs beside the mapper's own workers.
  in->decoder_->thread_count = 0;
  if (nvdec) {
    std::string why = attach_nvdec(*in->decoder_, *codec);
    in->hardware_ = why.empty();
    if (nvdec_note) *nvdec_note = why;
  }
  if (int r = avcodec_open2(in->decoder_.get(), codec, nullptr); r < 0)
    return av_status(StatusCode::unsupported, path + ": cannot open the " + std::string(codec->name) + " decoder", r);
  in->packet_.reset(av_packet_alloc());
  in->frame_.reset(av_frame_alloc());
  if (!in->packet_ || !in->frame_) return Status{StatusCode::out_of_memory, "cannot allocate a packet or frame"};
  take_decoder_error();  // what probing logged is not the frames' business
  // A file cut inside its headers' reach is reported by probing already.
  if (std::string note = take_demuxer_end_note(); !note.empty()) in->probe_note_ = note;
  return in;
}

AVRational VideoInput::frame_rate() const {
  return av_guess_frame_rate(format_.get(), format_->streams[video_index_], nullptr);
}

long long VideoInput::frame_count_hint() const {
  const AVStream& st = stream();
  if (st.nb_frames > 0) return st.nb_frames;
  const AVRational rate = frame_rate();
  const double seconds = duration_seconds();
  if (rate.num > 0 && rate.den > 0 && seconds > 0) return static_cast<long long>(seconds * av_q2d(rate) + 0.5);
  return 0;
}

double VideoInput::duration_seconds() const {
  const AVStream& st = stream();
  if (st.duration > 0) return st.duration * av_q2d(st.time_base);
  if (format_->duration > 0) return static_cast<double>(format_->duration) / AV_TIME_BASE;
  return 0.0;
}

void VideoInput::note_corruption(const AVPacket* packet, const std::string& cause) {
  ++corrupt_;
  // Errors soon after a warning are mostly its consequences (frames that referenced the damaged
  // one, errors that frame threads return late): one line for the damage.
  if (packets_since_warning_ <= kThreadDelayPackets) return;
  packets_since_warning_ = 0;
  ++warned_;
  if (warned_ > kMaxCorruptionWarnings) return;
  const AVStream& st = stream();
  const long long ts = packet && packet->pts != AV_NOPTS_VALUE ? packet->pts : (packet ? packet->dts : last_pts_);
  char when[64] = "";
  if (ts != AV_NOPTS_VALUE) std::snprintf(when, sizeof when, " at %.3f s", ts * av_q2d(st.time_base));
  std::fprintf(stderr, "tonekit: warning: %s: corrupt video data%s (%s); decoding goes on%s\n", path_.c_str(), when,
               cause.c_str(), warned_ == kMaxCorruptionWarnings ? " (further corruption warnings are left out)" : "");
}

Result<AVFrame*> VideoInput::next_frame(const std::function<Status(AVPacket&)>& other) {
  AVCodecContext* dec = decoder_.get();
  for (;;) {
    av_frame_unref(frame_.get());
    const int got = avcodec_receive_frame(dec, frame_.get());
    if (std::string e = take_decoder_error(); !e.empty()) note_corruption(nullptr, e);
    if (got == 0) {
      if (frame_->decode_error_flags != 0 || (frame_->flags & AV_FRAME_FLAG_CORRUPT))
        note_corruption(nullptr, "the decoder marked a frame as damaged");
      last_pts_ = frame_->best_effort_timestamp;
      return frame_.get();
    }
    if (got == AVERROR_EOF) return nullptr;
    if (got != AVERROR(EAGAIN)) {
      // A decoder that cannot go on: what was decoded stays written, as for a truncated file.
      read_error_ = "the decoder stopped: " + av_error_text(got);
      return nullptr;
    }
    if (draining_) return nullptr;
    AVPacket* pkt = packet_.get();
    const int r = av_read_frame(format_.get(), pkt);
    if (r < 0) {
      std::string note = take_demuxer_end_note();
      if (note.empty()) note = probe_note_;
      if (r != AVERROR_EOF) read_error_ = note.empty() ? av_error_text(r) : note;
      else if (format_->pb && format_->pb->error < 0) read_error_ = av_error_text(format_->pb->error);
      else if (!note.empty()) read_error_ = note;
      // An error the demuxer logged as it gave up (e.g. a damaged Matroska block): the rest of
      // the file is lost, as with a truncation.
      if (std::string e = take_decoder_error(); read_error_.empty() && !e.empty()) read_error_ = e;
      draining_ = true;
      avcodec_send_packet(dec, nullptr);
      continue;
    }
    if (pkt->stream_index != video_index_) {
      Status s = other(*pkt);
      av_packet_unref(pkt);
      if (!s.ok()) return s;
      continue;
    }
    const int sent = avcodec_send_packet(dec, pkt);
    std::string e = take_decoder_error();
    ++packets_since_warning_;
    if (!e.empty()) {
      note_corruption(pkt, e);
    } else if (sent < 0 && sent != AVERROR(EAGAIN)) {
      note_corruption(pkt, av_error_text(sent));
    }
    av_packet_unref(pkt);
  }
}

}  // namespace tonekit::video
