// Files and directories a command makes on its way to a result (an output being written, the
// import `replay LOG` makes, an import's files before they get their names): removed when the
// command fails, and when SIGINT, SIGTERM or SIGHUP ends it, so that nothing is left behind and no
// partial output ever sits at its final name.
//
//   TemporaryPath part(dir / ".out.json.assignor-1a2b3c", TemporaryPath::Kind::file);
//   write(part.path());
//   std::filesystem::rename(part.path(), dir / "out.json");
//   part.release();                                   // it has its final name: nothing to remove
//
// The first TemporaryPath installs handlers for the three signals (only where their action is the
// default: an ignored SIGHUP stays ignored) that remove every registered path, then end the
// process by the same signal. The parent of child processes forwards those signals to its children
// first and then calls remove_temporary_paths_for_signal() itself (process/child_process.hpp).
#pragma once

#include <filesystem>

namespace assignor::host {

class TemporaryPath {
 public:
  enum class Kind { file, directory };
  TemporaryPath() = default;
  // Registers `path` (which the caller creates, or has created) for removal.
  TemporaryPath(std::filesystem::path path, Kind kind);
  ~TemporaryPath();  // removes it (a directory with what it holds) unless released
  TemporaryPath(TemporaryPath&& other) noexcept;
  TemporaryPath& operator=(TemporaryPath&& other) noexcept;
  TemporaryPath(const TemporaryPath&) = delete;
  TemporaryPath& operator=(const TemporaryPath&) = delete;

  const std::filesystem::path& path() const noexcept { return path_; }
  // Keep it from now on (it was renamed, or is the result): never removed.
  void release() noexcept;

 private:
  void remove_now() noexcept;
  std::filesystem::path path_;
  Kind kind_ = Kind::file;
  int slot_ = -1;  // in the signal handler's table, -1 when not (or no longer) registered
};

// Removes every registered path: async-signal-safe (system calls only), for signal handlers.
void remove_temporary_paths_for_signal() noexcept;

}  // namespace assignor::host
