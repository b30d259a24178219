// Reads a log file line by line, plain or gzip-compressed (zlib reads both), in one pass: memory is
// the largest line plus a fixed buffer, never the file. Not installed.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace assignor::host::detail {

class LogLines {
 public:
  // Throws InputError naming the file when it cannot be opened. `max_line_bytes` bounds a single
  // line (a line longer than that is cut there and reported by cut()).
  LogLines(const std::string& path, std::uint64_t max_line_bytes);
  ~LogLines();
  LogLines(const LogLines&) = delete;
  LogLines& operator=(const LogLines&) = delete;

  // The next line without its '\n' (and '\r'), valid until the next call; false at the end.
  // Throws InputError for a read error or a damaged compressed stream.
  bool next(std::string_view& line);
  std::uint64_t line_number() const noexcept { return line_number_; }
  // The line just returned was longer than max_line_bytes and is only its first part.
  bool cut() const noexcept { return cut_; }
  std::uint64_t bytes_read() const noexcept { return bytes_read_; }

 private:
  bool fill();  // reads more into the buffer; false at the end of the file

  std::string path_;
  void* file_ = nullptr;  // gzFile
  std::string buffer_;
  std::size_t begin_ = 0, end_ = 0;  // unread bytes: buffer_[begin_, end_)
  bool eof_ = false;
  bool cut_ = false;
  bool skipping_ = false;  // discarding the rest of an over-long line
  std::uint64_t max_line_ = 0;
  std::uint64_t line_number_ = 0;
  std::uint64_t bytes_read_ = 0;
};

}  // namespace assignor::host::detail
