// A progress line on stderr for long runs (`assignor compare`, `assignor simulate`): silent for a
// short run, so that quick commands print nothing but their result; after `delay` it shows the
// latest state, at most once per `interval`. On a terminal the line is rewritten in place and erased
// by finish(); elsewhere (a log file, CI) each update is a line of its own.
//
//   ProgressLine progress(std::cerr, isatty(STDERR_FILENO) != 0);
//   for (...) progress.update(fmt::format("simulate: round {}", k));
//   progress.finish();
#pragma once

#include <chrono>
#include <functional>
#include <ostream>
#include <string>
#include <string_view>

namespace assignor::host {

class ProgressLine {
 public:
  using Clock = std::chrono::steady_clock;

  ProgressLine(std::ostream& out, bool terminal, std::chrono::milliseconds delay = std::chrono::seconds(1),
               std::function<Clock::time_point()> now = &Clock::now);
  ~ProgressLine();
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  // Shows `text` if the run is older than the delay and the last update older than the interval
  // (0.2 s on a terminal, 2 s elsewhere). Returns whether it was shown.
  bool update(std::string_view text);
  // Erases the line left on a terminal. Idempotent.
  void finish();

  bool shown_any() const noexcept { return shown_any_; }

 private:
  std::ostream& out_;
  bool terminal_;
  std::chrono::milliseconds delay_;
  std::function<Clock::time_point()> now_;
  Clock::time_point start_;
  Clock::time_point last_;
  bool shown_any_ = false;
  bool line_open_ = false;
};

}  // namespace assignor::host
