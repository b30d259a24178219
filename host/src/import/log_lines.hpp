// Reads a log file line by line, plain or gzip-compressed (zlib reads both), in one pass: memory is
// the longest line allowed plus a fixed buffer, never the file. Not installed.
//
// Bounded like every input (docs/reliability.md): a line longer than `max_line_bytes` is handed out
// cut there (cut()) and the rest of it skipped; more than `max_file_bytes` read (after
// decompression) is an InputError naming the limit, so /dev/zero or a gzip bomb ends; a FIFO without
// a writer reads as an empty file; a gzip stream that is cut short or damaged is an InputError
// naming the file and the compressed offset, never the end of the file.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace assignor::host::detail {

struct LogLimits {
  std::uint64_t max_line_bytes = std::uint64_t{32} << 20;  // --max-line-mb
  std::uint64_t max_file_bytes = std::uint64_t{1} << 30;   // --max-file-mb (decompressed)
};

class LogLines {
 public:
  // Throws InputError naming the file when it cannot be opened ("-" is standard input).
  LogLines(const std::string& path, LogLimits limits);
  ~LogLines();
  LogLines(const LogLines&) = delete;
  LogLines& operator=(const LogLines&) = delete;

  // The next line without its '\n' (and '\r'), valid until the next call; false at the end.
  // Throws InputError for a read error, a damaged or truncated compressed stream, or past
  // max_file_bytes.
  bool next(std::string_view& line);
  std::uint64_t line_number() const noexcept { return line_number_; }
  // The line just returned was longer than max_line_bytes and is only its first part.
  bool cut() const noexcept { return cut_; }
  std::uint64_t bytes_read() const noexcept { return bytes_read_; }

 private:
  bool fill();  // reads more into the buffer; false at the end of the file

  std::string path_, name_;
  void* file_ = nullptr;  // gzFile
  std::string buffer_;
  std::size_t begin_ = 0, end_ = 0;  // unread bytes: buffer_[begin_, end_)
  bool eof_ = false;
  bool cut_ = false;
  bool skipping_ = false;  // discarding the rest of an over-long line
  LogLimits limits_;
  std::uint64_t line_number_ = 0;
  std::uint64_t bytes_read_ = 0;
};

}  // namespace assignor::host::detail
