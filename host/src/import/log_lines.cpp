#include "log_lines.hpp"

#include <fmt/format.h>
#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <system_error>

#include "assignor/errors.hpp"

namespace assignor::host::detail {

namespace {
constexpr std::size_t kChunk = std::size_t{4} << 20;
}

LogLines::LogLines(const std::string& path, std::uint64_t max_line_bytes) : path_(path), max_line_(max_line_bytes) {
  errno = 0;
  gzFile f = path == "-" ? ::gzdopen(::dup(0), "rb") : ::gzopen(path.c_str(), "rb");
  if (f == nullptr)
    throw InputError(fmt::format("{}: cannot read the log: {}", path,
                                 errno != 0 ? std::error_code(errno, std::generic_category()).message()
                                            : std::string("out of memory")));
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
  if (end_ == buffer_.size()) buffer_.resize(buffer_.size() * 2);
  const std::size_t room = std::min<std::size_t>(buffer_.size() - end_, 1u << 30);
  const int n = ::gzread(static_cast<gzFile>(file_), buffer_.data() + end_, static_cast<unsigned>(room));
  if (n < 0) {
    int code = 0;
    const char* what = ::gzerror(static_cast<gzFile>(file_), &code);
    throw InputError(fmt::format("{}: cannot read the log: {}", path_,
                                 code == Z_ERRNO ? std::error_code(errno, std::generic_category()).message()
                                                 : std::string(what != nullptr ? what : "read error")));
  }
  if (n == 0) {
    int code = 0;
    const char* what = ::gzerror(static_cast<gzFile>(file_), &code);
    if (code != Z_OK && code != Z_BUF_ERROR)
      throw InputError(fmt::format("{}: the compressed log is damaged: {}", path_, what != nullptr ? what : "?"));
    eof_ = true;
    return false;
  }
  end_ += static_cast<std::size_t>(n);
  bytes_read_ += static_cast<std::uint64_t>(n);
  return true;
}

bool LogLines::next(std::string_view& line) {
  cut_ = false;
  for (;;) {
    const char* start = buffer_.data() + begin_;
    const void* nl = std::memchr(start, '\n', end_ - begin_);
    if (nl != nullptr || (eof_ && end_ > begin_)) {
      const std::size_t len = nl != nullptr ? static_cast<std::size_t>(static_cast<const char*>(nl) - start) : end_ - begin_;
      begin_ += len + (nl != nullptr ? 1 : 0);
      if (skipping_) {  // the tail of an over-long line: dropped
        skipping_ = false;
        continue;
      }
      ++line_number_;
      line = std::string_view(start, len);
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      return true;
    }
    if (eof_) return false;
    if (end_ - begin_ >= max_line_ && !skipping_) {
      // An over-long line: hand out its first part, marked cut, and skip the rest.
      ++line_number_;
      line = std::string_view(start, static_cast<std::size_t>(max_line_));
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
