#include "video/video_output.hpp"

extern "C" {
#include <libavutil/imgutils.h>
#include <libavutil/opt.h>
}

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string_view>

namespace tonekit::video {
namespace {

void warn_line(const std::string& text) { std::fprintf(stderr, "tonekit: warning: %s\n", text.c_str()); }

bool takes_yuv420p(const AVCodec& codec) {
  if (!codec.pix_fmts) return true;  // rawvideo and others that take any layout
  for (const AVPixelFormat* p = codec.pix_fmts; *p != AV_PIX_FMT_NONE; ++p)
    if (*p == AV_PIX_FMT_YUV420P) return true;
  return false;
}

bool is_nvenc(const AVCodec& codec) {
  const std::string name = codec.name;
  return name.size() > 6 && name.compare(name.size() - 6, 6, "_nvenc") == 0;
}

// The encoder's options: --crf (NVENC calls its constant-quality level cq), --preset, then
// --encoder-opt, which wins.
AVDictionary* encoder_dictionary(const AVCodec& codec, const EncoderSettings& s) {
  AVDictionary* d = nullptr;
  // x265 prints its banner and statistics on stderr itself; errors only, unless the user's
  // x265-params (which come after, so win) say otherwise.
  if (std::string_view(codec.name) == "libx265") av_dict_set(&d, "x265-params", "log-level=error", 0);
  if (s.crf >= 0) av_dict_set_int(&d, is_nvenc(codec) ? "cq" : "crf", s.crf, 0);
  if (!s.preset.empty()) av_dict_set(&d, "preset", s.preset.c_str(), 0);
  for (const auto& [k, v] : s.options) {
    const AVDictionaryEntry* had = k == "x265-params" ? av_dict_get(d, k.c_str(), nullptr, 0) : nullptr;
    av_dict_set(&d, k.c_str(), had ? (std::string(had->value) + ":" + v).c_str() : v.c_str(), 0);
  }
  return d;
}

struct Opened {
  CodecPtr context;
  std::string error;  // why it did not open ("" when it did)
};

Opened open_encoder(const AVCodec& codec, const AVFormatContext& out, const AVStream& from, AVRational frame_rate,
                    int width, int height, const EncoderSettings& s) {
  Opened o;
  o.context.reset(avcodec_alloc_context3(&codec));
  AVCodecContext* c = o.context.get();
  if (!c) {
    o.error = "cannot allocate an encoder";
    return o;
  }
  c->width = width;
  c->height = height;
  c->pix_fmt = AV_PIX_FMT_YUV420P;
  c->time_base = from.time_base;  // the input's timestamps are kept as they are
  if (frame_rate.num > 0 && frame_rate.den > 0) c->framerate = frame_rate;
  c->sample_aspect_ratio = from.codecpar->sample_aspect_ratio;
  c->color_primaries = AVCOL_PRI_BT709;
  c->color_trc = s.transfer;
  c->colorspace = AVCOL_SPC_BT709;
  c->color_range = s.range == YuvRange::full ? AVCOL_RANGE_JPEG : AVCOL_RANGE_MPEG;
  c->chroma_sample_location = AVCHROMA_LOC_CENTER;  // the 4:2:0 encode averages each 2x2 block
  c->thread_count = 0;
  // SVT-AV1 prints its configuration on stderr unless SVT_LOG says less (1: errors); a user's
  // SVT_LOG stays.
  if (std::string_view(codec.name) == "libsvtav1") ::setenv("SVT_LOG", "1", 0);
  if (out.oformat->flags & AVFMT_GLOBALHEADER) c->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
  AVDictionary* d = encoder_dictionary(codec, s);
  const int r = avcodec_open2(c, &codec, &d);
  take_decoder_error();
  if (r < 0) {
    o.error = av_error_text(r);
    o.context.reset();
  } else {
    for (const AVDictionaryEntry* e = nullptr; (e = av_dict_get(d, "", e, AV_DICT_IGNORE_SUFFIX));)
      warn_line(std::string("the ") + codec.name + " encoder has no option '" + e->key + "' (ignored)");
  }
  av_dict_free(&d);
  return o;
}

// Whether the muxer writes a header for this stream alone, into memory: avformat_query_codec
// says yes to some pairs the header then refuses (FLAC in MOV), and a refused header is better
// found per stream, so that only that stream is left out.
bool muxer_takes(const AVOutputFormat& format, const AVCodecParameters& par, AVRational time_base, std::string& why) {
  AVFormatContext* probe = nullptr;
  if (avformat_alloc_output_context2(&probe, &format, nullptr, nullptr) < 0 || !probe) return true;
  probe->strict_std_compliance = FF_COMPLIANCE_EXPERIMENTAL;
  bool ok = false;
  if (AVStream* st = avformat_new_stream(probe, nullptr); st && avcodec_parameters_copy(st->codecpar, &par) >= 0) {
    st->codecpar->codec_tag = 0;
    st->time_base = time_base;
    if (avio_open_dyn_buf(&probe->pb) >= 0) {
      const int r = avformat_write_header(probe, nullptr);
      std::string e = take_decoder_error();
      ok = r >= 0;
      if (!ok) why = e.empty() ? av_error_text(r) : e;
      std::uint8_t* bytes = nullptr;
      avio_close_dyn_buf(probe->pb, &bytes);
      av_free(bytes);
      probe->pb = nullptr;
    }
  }
  avformat_free_context(probe);
  return ok;
}

// Chapters: FFmpeg 5.1 has no public call that adds one to an output, so they are copied the way
// its own command-line tool does, into the context's array.
Status copy_chapters(const AVFormatContext& in, AVFormatContext& out) {
  for (unsigned i = 0; i < in.nb_chapters; ++i) {
    const AVChapter* from = in.chapters[i];
    auto* ch = static_cast<AVChapter*>(av_mallocz(sizeof(AVChapter)));
    if (!ch) return Status{StatusCode::out_of_memory, "cannot copy the chapters"};
    ch->id = from->id;
    ch->time_base = from->time_base;
    ch->start = from->start;
    ch->end = from->end;
    av_dict_copy(&ch->metadata, from->metadata, 0);
    if (av_dynarray_add_nofree(&out.chapters, reinterpret_cast<int*>(&out.nb_chapters), ch) < 0) {
      av_dict_free(&ch->metadata);
      av_free(ch);
      return Status{StatusCode::out_of_memory, "cannot copy the chapters"};
    }
  }
  return {};
}

}  // namespace

Result<std::unique_ptr<VideoOutput>> VideoOutput::open(const std::string& path, const AVFormatContext& input,
                                                       const AVStream& from, AVRational frame_rate, int width,
                                                       int height, const EncoderSettings& s) {
  std::unique_ptr<VideoOutput> o(new VideoOutput);
  o->path_ = path;
  if (int r = avformat_alloc_output_context2(&o->out_, nullptr, s.container.empty() ? nullptr : s.container.c_str(),
                                             path.c_str());
      r < 0 || !o->out_)
    return invalid_argument(s.container.empty()
                                ? path + ": FFmpeg knows no container by this name's extension (use .mkv, .mp4, .mov, "
                                         ".nut, ...; or --format NAME)"
                                : "--format " + s.container + ": FFmpeg has no such muxer");
  AVFormatContext* out = o->out_;

  // 1. The encoder, or libx264 in its place.
  const AVCodec* codec = avcodec_find_encoder_by_name(s.codec.c_str());
  if (codec && codec->type != AVMEDIA_TYPE_VIDEO) return invalid_argument("--codec " + s.codec + " is not a video encoder");
  if (!codec && !avcodec_find_decoder_by_name(s.codec.c_str()) &&
      s.codec.find("nvenc") == std::string::npos && s.codec != "libsvtav1" && s.codec != "libx265")
    return invalid_argument("--codec " + s.codec + ": FFmpeg has no encoder of that name (e.g. libx264, libx265, "
                            "libsvtav1, h264_nvenc, hevc_nvenc, rawvideo)");
  if (codec && !takes_yuv420p(*codec))
    return unsupported("--codec " + s.codec + " does not take 8-bit 4:2:0 (yuv420p) frames");
  Opened enc;
  if (codec) enc = open_encoder(*codec, *out, from, frame_rate, width, height, s);
  if (!enc.context && s.codec != "libx264") {
    const AVCodec* x264 = avcodec_find_encoder_by_name("libx264");
    if (!x264) return unsupported("--codec " + s.codec + " is not available and neither is libx264");
    std::fprintf(stderr, "tonekit: warning: --codec %s %s; encoding with libx264 instead\n", s.codec.c_str(),
                 codec ? ("cannot open here (" + enc.error + ")").c_str() : "is not in this FFmpeg build");
    EncoderSettings fallback = s;
    fallback.codec = "libx264";
    fallback.options.clear();  // they were meant for the other encoder
    codec = x264;
    enc = open_encoder(*codec, *out, from, frame_rate, width, height, fallback);
  }
  if (!enc.context) return unsupported("cannot open the " + std::string(codec->name) + " encoder: " + enc.error);
  o->encoder_ = std::move(enc.context);
  if (avformat_query_codec(out->oformat, codec->id, FF_COMPLIANCE_NORMAL) == 0)
    return unsupported(path + ": the " + std::string(out->oformat->name) + " container cannot hold " +
                       avcodec_get_name(codec->id) + " video (try .mkv or .nut)");

  // 2. The streams: the video first, then every audio and subtitle stream the container takes.
  o->video_out_ = avformat_new_stream(out, nullptr);
  if (!o->video_out_) return Status{StatusCode::out_of_memory, "cannot add the video stream"};
  if (int r = avcodec_parameters_from_context(o->video_out_->codecpar, o->encoder_.get()); r < 0)
    return av_status(StatusCode::runtime_error, "video stream parameters", r);
  o->video_out_->time_base = o->encoder_->time_base;
  o->video_out_->avg_frame_rate = o->encoder_->framerate;
  av_dict_copy(&o->video_out_->metadata, from.metadata, 0);
  o->stream_map_.assign(input.nb_streams, -1);
  for (unsigned i = 0; i < input.nb_streams; ++i) o->input_time_bases_.push_back(input.streams[i]->time_base);
  o->stream_map_[from.index] = o->video_out_->index;
  for (unsigned i = 0; i < input.nb_streams; ++i) {
    const AVStream* ist = input.streams[i];
    const AVMediaType type = ist->codecpar->codec_type;
    if (ist == &from || (type != AVMEDIA_TYPE_AUDIO && type != AVMEDIA_TYPE_SUBTITLE)) continue;
    std::string why = "not a codec it holds";
    if (avformat_query_codec(out->oformat, ist->codecpar->codec_id, FF_COMPLIANCE_EXPERIMENTAL) == 0 ||
        !muxer_takes(*out->oformat, *ist->codecpar, ist->time_base, why)) {
      warn_line(path + ": input stream " + std::to_string(i) + " (" + avcodec_get_name(ist->codecpar->codec_id) + " " +
                av_get_media_type_string(type) + ") is left out: the " + out->oformat->name + " container cannot hold it (" +
                why + ")");
      continue;
    }
    o->stream_map_[i] = static_cast<int>(out->nb_streams);  // the next index
    AVStream* ost = avformat_new_stream(out, nullptr);
    if (!ost) return Status{StatusCode::out_of_memory, "cannot add a stream"};
    if (int r = avcodec_parameters_copy(ost->codecpar, ist->codecpar); r < 0)
      return av_status(StatusCode::runtime_error, "stream parameters", r);
    ost->codecpar->codec_tag = 0;  // the output container's own tag
    ost->time_base = ist->time_base;
    ost->disposition = ist->disposition;
    av_dict_copy(&ost->metadata, ist->metadata, 0);
  }
  if (Status st = copy_chapters(input, *out); !st.ok()) return st;
  av_dict_copy(&out->metadata, input.metadata, 0);

  // 3. The file: a temporary name beside the target, unless the target is a device.
  struct stat target {};
  // "-": standard output (a pipe into a player), with the container from --format.
  o->direct_ = path == "-" || (::stat(path.c_str(), &target) == 0 && !S_ISREG(target.st_mode));
  std::string name = path == "-" ? "pipe:1" : path;
  if (!o->direct_) {
    std::string pattern = path + ".tmp-XXXXXX";
    // mkstemp picks a free name; the file is then made again with mode 0666 minus the umask, as
    // any output file (mkstemp's is 0600).
    int fd = ::mkstemp(pattern.data());
    if (fd >= 0) {
      ::close(fd);
      ::unlink(pattern.c_str());
      fd = ::open(pattern.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    }
    if (fd < 0) return Status{StatusCode::io_error, path + ": cannot create a file beside it"};
    ::close(fd);
    o->temp_path_ = pattern;
    name = pattern;
  }
  if (!(out->oformat->flags & AVFMT_NOFILE))
    if (int r = avio_open(&out->pb, name.c_str(), AVIO_FLAG_WRITE); r < 0)
      return av_status(StatusCode::io_error, path + ": cannot write", r);
  // FLAC and Opus in MP4 are "experimental" to FFmpeg 5.1's muxer (standard since 6.0, and played
  // by browsers and players): allowed, so that such audio is copied rather than refused.
  out->strict_std_compliance = FF_COMPLIANCE_EXPERIMENTAL;
  if (int r = avformat_write_header(out, nullptr); r < 0) {
    std::string e = take_decoder_error();
    return Status{StatusCode::unsupported,
                  path + ": cannot write the " + std::string(out->oformat->name) + " header (" + (e.empty() ? av_error_text(r) : e) + ")"};
  }
  o->frame_.reset(av_frame_alloc());
  o->packet_.reset(av_packet_alloc());
  if (!o->frame_ || !o->packet_) return Status{StatusCode::out_of_memory, "cannot allocate a frame"};
  o->frame_->format = AV_PIX_FMT_YUV420P;
  o->frame_->width = width;
  o->frame_->height = height;
  if (int r = av_frame_get_buffer(o->frame_.get(), 0); r < 0) return av_status(StatusCode::out_of_memory, "frame buffer", r);
  return o;
}

VideoOutput::~VideoOutput() {
  if (!finished_) abandon();
  if (out_) avformat_free_context(out_);
}

void VideoOutput::abandon() {
  if (out_ && out_->pb && !(out_->oformat->flags & AVFMT_NOFILE)) avio_closep(&out_->pb);
  if (!temp_path_.empty()) std::remove(temp_path_.c_str());
  temp_path_.clear();
  finished_ = true;
}

const char* VideoOutput::encoder_name() const { return encoder_ ? encoder_->codec->name : "?"; }

Status VideoOutput::copy_packet(AVPacket& packet) {
  if (packet.stream_index < 0 || packet.stream_index >= static_cast<int>(stream_map_.size())) return {};
  const int index = stream_map_[packet.stream_index];
  if (index < 0) return {};
  AVStream* ost = out_->streams[index];
  av_packet_rescale_ts(&packet, input_time_bases_[packet.stream_index], ost->time_base);
  packet.stream_index = index;
  packet.pos = -1;
  if (int r = av_interleaved_write_frame(out_, &packet); r < 0)
    return av_status(StatusCode::io_error, path_ + ": writing a copied packet", r);
  return {};
}

Status VideoOutput::write_frame(const std::uint8_t* yuv420p, long long pts) {
  AVCodecContext* c = encoder_.get();
  if (int r = av_frame_make_writable(frame_.get()); r < 0) return av_status(StatusCode::out_of_memory, "frame", r);
  const std::uint8_t* planes[4];
  int strides[4];
  av_image_fill_arrays(const_cast<std::uint8_t**>(planes), strides, yuv420p, AV_PIX_FMT_YUV420P, c->width, c->height, 1);
  av_image_copy(frame_->data, frame_->linesize, planes, strides, AV_PIX_FMT_YUV420P, c->width, c->height);
  // Encoders refuse timestamps that do not increase (a damaged input can repeat one).
  if (pts == AV_NOPTS_VALUE || (last_pts_ != AV_NOPTS_VALUE && pts <= last_pts_))
    pts = last_pts_ == AV_NOPTS_VALUE ? 0 : last_pts_ + 1;
  last_pts_ = pts;
  frame_->pts = pts;
  frame_->pict_type = AV_PICTURE_TYPE_NONE;
  if (int r = avcodec_send_frame(c, frame_.get()); r < 0) return av_status(StatusCode::runtime_error, "encoding a frame", r);
  ++frames_;
  return drain_encoder(false);
}

Status VideoOutput::drain_encoder(bool flush) {
  AVCodecContext* c = encoder_.get();
  if (flush) avcodec_send_frame(c, nullptr);
  for (;;) {
    const int r = avcodec_receive_packet(c, packet_.get());
    if (r == AVERROR(EAGAIN) || r == AVERROR_EOF) return {};
    if (r < 0) return av_status(StatusCode::runtime_error, "encoding", r);
    packet_->stream_index = video_out_->index;
    av_packet_rescale_ts(packet_.get(), c->time_base, video_out_->time_base);
    if (int w = av_interleaved_write_frame(out_, packet_.get()); w < 0)
      return av_status(StatusCode::io_error, path_ + ": writing video", w);
  }
}

Status VideoOutput::finish() {
  Status s = drain_encoder(true);
  if (s.ok())
    if (int r = av_write_trailer(out_); r < 0) s = av_status(StatusCode::io_error, path_ + ": writing the trailer", r);
  if (s.ok() && out_->pb && !(out_->oformat->flags & AVFMT_NOFILE)) {
    if (int r = avio_closep(&out_->pb); r < 0) s = av_status(StatusCode::io_error, path_ + ": closing", r);
  }
  if (s.ok() && !temp_path_.empty()) {
    std::error_code ec;
    std::filesystem::rename(temp_path_, path_, ec);
    if (ec) s = Status{StatusCode::io_error, path_ + ": cannot rename the finished output into place: " + ec.message()};
    else temp_path_.clear();
  }
  if (!s.ok()) abandon();
  finished_ = true;
  return s;
}

}  // namespace tonekit::video
