#include "assignor/host/process/frames.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <stdexcept>

#include "assignor/errors.hpp"
#include "assignor/host/support/printable.hpp"

namespace assignor::host::process {

namespace {

bool is_word(std::string_view word) noexcept {
  return !word.empty() && std::all_of(word.begin(), word.end(), [](char c) { return c > ' ' && c < 0x7f; });
}

}  // namespace

std::string encode_frame(std::initializer_list<std::string_view> words, std::string_view payload) {
  if (words.size() == 0) throw std::invalid_argument("a frame needs at least one word");
  std::string out;
  out.reserve(32 + payload.size());
  for (std::string_view word : words) {
    if (!is_word(word)) throw std::invalid_argument(fmt::format("not a frame word: '{}'", printable(word)));
    out.append(word);
    out.push_back(' ');
  }
  fmt::format_to(std::back_inserter(out), "{}\n", payload.size());
  if (out.size() > kMaxHeaderBytes) throw std::invalid_argument("frame header too long");
  out.append(payload);
  return out;
}

std::string failure_frame(ErrorKind kind, std::string_view message) {
  return encode_frame({"fail", error_kind_name(kind)}, message);
}

std::string error_frame(ErrorKind kind, std::string_view message) {
  return encode_frame({"error", std::to_string(exit_status(kind))}, message);
}

void rethrow_if_failure(const Frame& frame) {
  if (frame.kind() != "fail") return;
  if (frame.words.size() != 2) throw std::runtime_error("malformed failure frame from a child process");
  const auto kind = error_kind_named(frame.words[1]);
  if (!kind)
    throw std::runtime_error(fmt::format("a child process failed with an unknown kind '{}': {}",
                                         printable(frame.words[1]), printable(frame.payload)));
  throw_error(*kind, frame.payload);
}

bool FrameReader::feed(std::string_view bytes) {
  if (malformed()) return false;
  // Drop what was taken before growing, so the buffer holds at most one frame and a piece.
  if (pos_ > 0 && pos_ >= buffer_.size() / 2) {
    buffer_.erase(0, pos_);
    payload_at_ -= std::min(payload_at_, pos_);
    pos_ = 0;
  }
  buffer_.append(bytes);
  if (!header_ && !parse_header()) return !malformed();
  return true;
}

bool FrameReader::parse_header() {
  const std::size_t limit = std::min(buffer_.size(), pos_ + kMaxHeaderBytes);
  const auto newline = buffer_.find('\n', pos_);
  if (newline == std::string::npos || newline >= limit) {
    if (buffer_.size() - pos_ >= kMaxHeaderBytes)
      error_ = fmt::format("a frame header longer than {} bytes without a newline", kMaxHeaderBytes);
    return false;
  }
  const std::string_view line(buffer_.data() + pos_, newline - pos_);
  Frame frame;
  std::size_t at = 0;
  while (at < line.size()) {
    const std::size_t end = std::min(line.find(' ', at), line.size());
    const std::string_view word = line.substr(at, end - at);
    if (!is_word(word)) {
      error_ = fmt::format("a frame header that is not words of printable ASCII: '{}'", printable(line));
      return false;
    }
    frame.words.emplace_back(word);
    at = end + 1;
  }
  if (frame.words.size() < 2) {
    error_ = fmt::format("a frame header without a kind and a length: '{}'", printable(line));
    return false;
  }
  const std::string& n = frame.words.back();
  std::uint64_t length = 0;
  const auto [ptr, ec] = std::from_chars(n.data(), n.data() + n.size(), length);
  if (ec != std::errc() || ptr != n.data() + n.size() || (n.size() > 1 && n[0] == '0')) {
    error_ = fmt::format("a frame length that is not a decimal number: '{}'", printable(n));
    return false;
  }
  if (length > limits_.max_payload) {
    error_ = fmt::format("a frame of {} bytes, more than the limit of {}", length, limits_.max_payload);
    return false;
  }
  frame.words.pop_back();
  header_ = std::move(frame);
  length_ = length;
  payload_at_ = newline + 1;
  return true;
}

std::optional<Frame> FrameReader::next() {
  if (malformed()) return std::nullopt;
  if (!header_ && !parse_header()) return std::nullopt;
  if (buffer_.size() - payload_at_ < length_) return std::nullopt;
  Frame frame = std::move(*header_);
  header_.reset();
  frame.payload.assign(buffer_, payload_at_, static_cast<std::size_t>(length_));
  pos_ = payload_at_ + static_cast<std::size_t>(length_);
  if (pos_ == buffer_.size()) {
    buffer_.clear();
    pos_ = 0;
  }
  payload_at_ = pos_;
  return frame;
}

bool write_all(int fd, std::string_view bytes) noexcept {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

std::optional<Frame> read_frame(int fd, FrameReader& reader) {
  for (;;) {
    if (auto frame = reader.next()) return frame;
    if (reader.malformed()) throw InputError(fmt::format("malformed request stream: {}", reader.error()));
    char chunk[1 << 16];
    const ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw InputError(fmt::format("cannot read requests: {}", std::strerror(errno)));
    if (n == 0) {
      if (reader.mid_frame()) throw InputError("the request stream ended inside a frame");
      return std::nullopt;
    }
    reader.feed(std::string_view(chunk, static_cast<std::size_t>(n)));
  }
}

}  // namespace assignor::host::process
