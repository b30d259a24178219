#include "assignor/host/support/temporary_files.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <csignal>
#include <cstring>
#include <mutex>
#include <system_error>

namespace assignor::host {

namespace {

// The table the signal handler reads: fixed, so that nothing is allocated or locked there. A slot
// is claimed (1), filled, then published (2); the handler touches published slots only.
constexpr std::size_t kSlots = 64;
struct Slot {
  std::atomic<int> state{0};  // 0 free, 1 being filled, 2 registered
  bool directory = false;
  char path[PATH_MAX] = {};
};
std::array<Slot, kSlots> g_slots;

// Removes what directory `fd` holds, `depth` levels down at most, with system calls only. Listed
// again after each pass that removed something (removing while listing may skip entries); a pass
// that removes nothing ends it (what cannot be removed is left).
void empty_directory(int fd, int depth) noexcept {
  char buffer[4096];
  for (bool removed = true; removed;) {
    removed = false;
    ::lseek(fd, 0, SEEK_SET);
    for (;;) {
      const long n = ::syscall(SYS_getdents64, fd, buffer, sizeof buffer);
      if (n <= 0) break;
      for (long at = 0; at < n;) {
        struct Entry {  // struct linux_dirent64
          ino64_t ino;
          off64_t off;
          unsigned short reclen;
          unsigned char type;
          char name[1];
        };
        const auto* e = reinterpret_cast<const Entry*>(buffer + at);
        at += e->reclen;
        if (std::strcmp(e->name, ".") == 0 || std::strcmp(e->name, "..") == 0) continue;
        if (::unlinkat(fd, e->name, 0) == 0) {
          removed = true;
          continue;
        }
        if (depth == 0) continue;
        const int sub = ::openat(fd, e->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (sub < 0) continue;
        empty_directory(sub, depth - 1);
        ::close(sub);
        removed = ::unlinkat(fd, e->name, AT_REMOVEDIR) == 0 || removed;
      }
    }
  }
}

void remove_path(const char* path, bool directory) noexcept {
  if (!directory) {
    ::unlink(path);
    return;
  }
  const int fd = ::open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd >= 0) {
    empty_directory(fd, 8);
    ::close(fd);
  }
  ::rmdir(path);
}

extern "C" void remove_and_reraise(int sig) {
  remove_temporary_paths_for_signal();
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

void install_handlers() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (const int sig : {SIGINT, SIGTERM, SIGHUP}) {
      struct sigaction current {};
      if (::sigaction(sig, nullptr, &current) != 0 || current.sa_handler != SIG_DFL) continue;
      struct sigaction action {};
      action.sa_handler = remove_and_reraise;
      sigemptyset(&action.sa_mask);
      ::sigaction(sig, &action, nullptr);
    }
  });
}

}  // namespace

void remove_temporary_paths_for_signal() noexcept {
  for (Slot& slot : g_slots) {
    int registered = 2;
    if (slot.state.compare_exchange_strong(registered, 1)) remove_path(slot.path, slot.directory);
  }
}

TemporaryPath::TemporaryPath(std::filesystem::path path, Kind kind) : path_(std::move(path)), kind_(kind) {
  install_handlers();
  const std::string text = std::filesystem::absolute(path_).string();
  if (text.size() >= PATH_MAX) return;  // removed on failure, not on a signal (no such path is made here)
  for (std::size_t i = 0; i < kSlots; ++i) {
    int free = 0;
    if (!g_slots[i].state.compare_exchange_strong(free, 1)) continue;
    std::memcpy(g_slots[i].path, text.c_str(), text.size() + 1);
    g_slots[i].directory = kind == Kind::directory;
    g_slots[i].state.store(2);
    slot_ = static_cast<int>(i);
    return;
  }
}

TemporaryPath::~TemporaryPath() { remove_now(); }

TemporaryPath::TemporaryPath(TemporaryPath&& other) noexcept
    : path_(std::move(other.path_)), kind_(other.kind_), slot_(other.slot_) {
  other.path_.clear();
  other.slot_ = -1;
}

TemporaryPath& TemporaryPath::operator=(TemporaryPath&& other) noexcept {
  if (this != &other) {
    remove_now();
    path_ = std::move(other.path_);
    kind_ = other.kind_;
    slot_ = other.slot_;
    other.path_.clear();
    other.slot_ = -1;
  }
  return *this;
}

void TemporaryPath::release() noexcept {
  if (slot_ >= 0) g_slots[static_cast<std::size_t>(slot_)].state.store(0);
  slot_ = -1;
  path_.clear();
}

void TemporaryPath::remove_now() noexcept {
  if (path_.empty()) return;
  std::error_code ec;
  if (kind_ == Kind::directory)
    std::filesystem::remove_all(path_, ec);
  else
    std::filesystem::remove(path_, ec);
  release();
}

}  // namespace assignor::host
