// One framing for every message between the host and a process it talks to: parallel workers
// (compare, sweep), isolated strategy runs, plugin probes, and the resident worker `assignor serve`
// whose bridges speak it too (DESIGN 4.9). A frame is a header line of ASCII words, the last of
// which is the payload's length N in decimal, then exactly N bytes of payload:
//
//   "assign 5120\n" + 5120 bytes        a request to the resident worker
//   "ok 20311\n" + 20311 bytes          its answer
//   "error 2 57\n" + 57 bytes           a failure, by exit status (the resident worker's contract)
//   "fail config 31\n" + 31 bytes       a failure between the host and its own children, by kind
//
// Text framing keeps the stream readable in a trace and trivial to speak from Java; the payload is
// opaque (JSON, or packed binary for an assignment). The reader is strict: a header longer than
// kMaxHeaderBytes, a word that is not printable ASCII, a length that is not a plain decimal or is
// above the reader's payload limit, is a malformed stream (the peer is not speaking the protocol),
// never a guess. Failures travel by ErrorKind (support/errors.hpp), the host's one mapping.
//
//   FrameReader reader({.max_payload = 64 << 20});
//   reader.feed(bytes);
//   while (auto frame = reader.next()) handle(frame->words, frame->payload);
//   if (reader.malformed()) fail(reader.error());
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "assignor/host/support/errors.hpp"

namespace assignor::host::process {

inline constexpr std::size_t kMaxHeaderBytes = 1024;

struct Frame {
  std::vector<std::string> words;  // the header's words, without the length; never empty
  std::string payload;

  const std::string& kind() const noexcept { return words.front(); }
};

struct FrameLimits {
  std::uint64_t max_payload = std::uint64_t{1} << 30;
};

// "w1 w2 ... N\n" + payload. Each word must be non-empty printable ASCII without spaces
// (std::invalid_argument otherwise: a programming error, not input).
std::string encode_frame(std::initializer_list<std::string_view> words, std::string_view payload);

// A failure between the host and its own children, with its exact kind: "fail KIND N" + message.
std::string failure_frame(ErrorKind kind, std::string_view message);
// The resident worker's failure answer (DESIGN 4.9): "error CODE N" + message, CODE the exit
// status `assignor assign` would have given.
std::string error_frame(ErrorKind kind, std::string_view message);

// If `frame` is a failure frame ("fail KIND N"), throws the error it carries (throw_error); a
// "fail" frame with an unknown kind is thrown as an internal error naming the word.
void rethrow_if_failure(const Frame& frame);

// Splits a byte stream into frames. Feed it what arrives, in any pieces; take frames with next().
class FrameReader {
 public:
  explicit FrameReader(FrameLimits limits = {}) : limits_(limits) {}

  // Appends `bytes`; false once the stream is malformed (then error() says why, and nothing more
  // is read).
  bool feed(std::string_view bytes);
  // The next complete frame, in order; nullopt when none is complete yet (or the stream is malformed).
  std::optional<Frame> next();

  bool malformed() const noexcept { return !error_.empty(); }
  const std::string& error() const noexcept { return error_; }
  // Bytes of a frame that is not complete yet are held (at the end of a stream: it was cut short).
  bool mid_frame() const noexcept { return pos_ < buffer_.size(); }

 private:
  bool parse_header();

  FrameLimits limits_;
  std::string buffer_;
  std::size_t pos_ = 0;          // start of the first frame not taken yet
  std::optional<Frame> header_;  // its header, once parsed
  std::uint64_t length_ = 0;
  std::size_t payload_at_ = 0;
  std::string error_;
};

// Writes all of `bytes` to `fd` (retrying on EINTR and short writes); false when the other end
// is gone or the write fails.
bool write_all(int fd, std::string_view bytes) noexcept;

// Reads one whole frame from `fd` (blocking), for a process whose input is one peer's requests
// (`assignor serve` on stdin). nullopt at a clean end of stream (EOF between frames); throws
// InputError naming the problem for a malformed stream or an end of stream inside a frame.
std::optional<Frame> read_frame(int fd, FrameReader& reader);

}  // namespace assignor::host::process
