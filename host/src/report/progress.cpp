#include "assignor/host/report/progress.hpp"

#include <utility>

namespace assignor::host {

ProgressLine::ProgressLine(std::ostream& out, bool terminal, std::chrono::milliseconds delay,
                           std::function<Clock::time_point()> now)
    : out_(out), terminal_(terminal), delay_(delay), now_(std::move(now)), start_(now_()), last_(start_) {}

ProgressLine::~ProgressLine() { finish(); }

bool ProgressLine::update(std::string_view text) {
  const auto t = now_();
  if (t - start_ < delay_) return false;
  const auto interval = terminal_ ? std::chrono::milliseconds(200) : std::chrono::milliseconds(2000);
  if (shown_any_ && t - last_ < interval) return false;
  last_ = t;
  shown_any_ = true;
  if (terminal_) {
    out_ << '\r' << text << "\x1b[K";  // rewrite in place, clearing what a longer line left
    line_open_ = true;
  } else {
    out_ << text << '\n';
  }
  out_.flush();
  return true;
}

void ProgressLine::finish() {
  if (!line_open_) return;
  out_ << "\r\x1b[K";  // the line was transient: leave the terminal as it was
  out_.flush();
  line_open_ = false;
}

}  // namespace assignor::host
