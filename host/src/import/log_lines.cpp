#include "log_lines.hpp"

#include <fmt/format.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <system_error>

#include "assignor/errors.hpp"
#include "assignor/host/formats/text_file.hpp"
#include "assignor/host/support/printable.hpp"

namespace assignor::host::detail {

namespace {
constexpr std::size_t kChunk = std::size_t{4} << 20;
}

LogLines::LogLines(const std::string& path, LogLimits limits)
    : path_(path), name_(printable(source_name(path))), limits_(limits) {
  limits_.max_line_bytes = std::max<std::uint64_t>(limits_.max_line_bytes, 1);
  const int fd = open_input(name_, path, "the log");  // a FIFO without a writer: an empty log, never a hang
  gzFile f = ::gzdopen(fd, "rb");
  if (f == nullptr) {
    ::close(fd);
    throw InputError(fmt::format("{}: cannot read the log: out of memory", name_));
  }
  ::gzbuffer(f, 1u << 20);
  file_ = f;
  buffer_.resize(kChunk);
}

LogLines::~LogLines() {
  if (file_ != nullptr) ::gzclose(static_cast<gzFile>(file_));
}

bool LogLines::fill() {
  if (eof_) return false;
  if (begin_ > 0) {  // keep the partial line at the front
    std::memmove(buffer_.data(), buffer_.data() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  // Room for the longest line allowed and one more chunk, never more: a line without an end (a
  // gzip bomb of 2 GiB without a newline) costs the limit, not its length.
  if (end_ == buffer_.size())
    buffer_.resize(
        static_cast<std::size_t>(std::min<std::uint64_t>(buffer_.size() * 2, limits_.max_line_bytes + kChunk)));
  const std::size_t room = std::min<std::size_t>(buffer_.size() - end_, 1u << 30);
  auto* file = static_cast<gzFile>(file_);
  const int n = ::gzread(file, buffer_.data() + end_, static_cast<unsigned>(room));
  auto damaged = [&](const char* what, int code) {
    // Where it broke, in the compressed file, and how far the text had got. zlib names the file
    // "<fd:N>" (it was opened by descriptor): that part says nothing to the user.
    std::string_view reason = what != nullptr ? what : "read error";
    if (reason.rfind("<fd:", 0) == 0)
      if (const auto colon = reason.find(": "); colon != std::string_view::npos) reason.remove_prefix(colon + 2);
    return InputError(fmt::format(
        "{}: the compressed log is {} at byte {} of the file (after line {}, {} bytes "
        "of text): {}",
        name_, code == Z_BUF_ERROR ? "cut short" : "damaged", ::gzoffset(file), line_number_, bytes_read_, reason));
  };
  if (n < 0) {
    int code = 0;
    const char* what = ::gzerror(file, &code);
    if (code == Z_ERRNO)
      throw InputError(
          fmt::format("{}: cannot read the log: {}", name_, std::error_code(errno, std::generic_category()).message()));
    throw damaged(what, code);
  }
  if (n == 0) {
    // zlib ends a stream that stops inside a gzip member with Z_BUF_ERROR ("unexpected end of
    // file"): a truncated .gz, whose lines so far are not the whole log.
    int code = 0;
    const char* what = ::gzerror(file, &code);
    if (code != Z_OK) throw damaged(what, code);
    eof_ = true;
    return false;
  }
  end_ += static_cast<std::size_t>(n);
  bytes_read_ += static_cast<std::uint64_t>(n);
  if (bytes_read_ > limits_.max_file_bytes)
    throw InputError(
        fmt::format("{}: the log holds more than {} bytes{} (--max-file-mb); give a larger limit, or "
                    "the part of the log around the rebalances",
                    name_, limits_.max_file_bytes, ::gzdirect(file) ? "" : " once decompressed"));
  return true;
}

bool LogLines::next(std::string_view& line) {
  cut_ = false;
  for (;;) {
    const char* start = buffer_.data() + begin_;
    const void* nl = std::memchr(start, '\n', end_ - begin_);
    if (nl != nullptr || (eof_ && end_ > begin_)) {
      const std::size_t len =
          nl != nullptr ? static_cast<std::size_t>(static_cast<const char*>(nl) - start) : end_ - begin_;
      begin_ += len + (nl != nullptr ? 1 : 0);
      if (skipping_) {  // the tail of an over-long line: dropped
        skipping_ = false;
        continue;
      }
      ++line_number_;
      line = std::string_view(start, len);
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      if (line.size() > limits_.max_line_bytes) {  // it ended within the buffer, past the limit
        line = line.substr(0, static_cast<std::size_t>(limits_.max_line_bytes));
        cut_ = true;
      }
      return true;
    }
    if (eof_) return false;
    if (end_ - begin_ >= limits_.max_line_bytes && !skipping_) {
      // An over-long line: hand out its first part, marked cut, and skip the rest.
      ++line_number_;
      line = std::string_view(start, static_cast<std::size_t>(limits_.max_line_bytes));
      begin_ = end_;
      skipping_ = true;
      cut_ = true;
      return true;
    }
    if (skipping_) begin_ = end_;
    if (!fill() && end_ == begin_) return false;
  }
}

}  // namespace assignor::host::detail
