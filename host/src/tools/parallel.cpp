#include "parallel.hpp"

#include <fmt/format.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <optional>
#include <thread>

#include "assignor/errors.hpp"
#include "assignor/host/plugins/plugin_registry.hpp"
#include "assignor/host/run/runner.hpp"
#include "assignor/host/support/logging.hpp"

namespace assignor::host::detail {

namespace {

// A result on a worker's pipe: u64 job, u8 kind, u64 length, the text.
enum class Kind : std::uint8_t { ok, input, config, plugin, strategy, failed, other };

struct Outcome {
  Kind kind = Kind::ok;
  std::string text;
};

Outcome run_one(const std::function<std::string(std::size_t)>& job, std::size_t i) {
  try {
    return {Kind::ok, job(i)};
  } catch (const ConfigError& e) {
    return {Kind::config, e.what()};
  } catch (const InputError& e) {
    return {Kind::input, e.what()};
  } catch (const PluginError& e) {
    return {Kind::plugin, e.what()};
  } catch (const AssignmentFailed& e) {
    return {Kind::failed, e.what()};
  } catch (const StrategyError& e) {
    return {Kind::strategy, e.what()};
  } catch (const std::exception& e) {
    return {Kind::other, e.what()};
  }
}

[[noreturn]] void rethrow(const Outcome& o) {
  switch (o.kind) {
    case Kind::config: throw ConfigError(o.text);
    case Kind::input: throw InputError(o.text);
    case Kind::plugin: throw PluginError(o.text);
    case Kind::failed: throw AssignmentFailed(o.text, {});
    case Kind::strategy: throw StrategyError(o.text);
    default: throw std::runtime_error(o.text);
  }
}

bool write_all(int fd, const char* data, std::size_t size) {
  while (size > 0) {
    const ssize_t n = ::write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace

unsigned worker_count(unsigned requested) noexcept {
  if (requested > 0) return requested;
  const unsigned cores = std::thread::hardware_concurrency();
  return cores > 0 ? cores : 1;
}

std::vector<std::string> run_jobs(std::size_t n, unsigned workers, const std::function<std::string(std::size_t)>& job,
                                  const std::function<void(std::size_t)>& done) {
  std::vector<std::optional<Outcome>> outcomes(n);
  workers = static_cast<unsigned>(std::min<std::size_t>(workers, n));
  if (workers <= 1) {
    for (std::size_t i = 0; i < n; ++i) {
      outcomes[i] = run_one(job, i);
      if (done) done(i + 1);
    }
  } else {
    // The next job to take, shared by the workers.
    void* shared = ::mmap(nullptr, sizeof(std::atomic<std::size_t>), PROT_READ | PROT_WRITE,
                          MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (shared == MAP_FAILED) throw InputError(fmt::format("cannot share memory with workers: {}", std::strerror(errno)));
    auto* next = new (shared) std::atomic<std::size_t>(0);
    std::cout.flush();
    std::cerr.flush();
    std::fflush(nullptr);
    struct Worker {
      pid_t pid = -1;
      int fd = -1;
      std::string buffer;
      std::optional<std::size_t> current;  // the job it reported starting last (for a crash)
    };
    std::vector<Worker> pool(workers);
    const pid_t parent = ::getpid();
    for (auto& w : pool) {
      int fds[2];
      if (::pipe(fds) != 0) throw InputError(fmt::format("pipe: {}", std::strerror(errno)));
      const pid_t pid = ::fork();
      if (pid < 0) throw InputError(fmt::format("fork: {}", std::strerror(errno)));
      if (pid == 0) {
        ::close(fds[0]);
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (::getppid() != parent) ::_exit(1);
        for (const auto& other : pool)
          if (other.fd >= 0) ::close(other.fd);
        for (;;) {
          const std::size_t i = next->fetch_add(1);
          if (i >= n) break;
          // Announce the job first: a crash in it is then known to be this job's.
          std::uint64_t header[2] = {i, ~std::uint64_t{0}};
          if (!write_all(fds[1], reinterpret_cast<const char*>(header), sizeof header)) ::_exit(1);
          const Outcome o = run_one(job, i);
          const std::uint64_t length = o.text.size();
          const std::uint8_t kind = static_cast<std::uint8_t>(o.kind);
          header[1] = length;
          if (!write_all(fds[1], reinterpret_cast<const char*>(header), sizeof header) ||
              !write_all(fds[1], reinterpret_cast<const char*>(&kind), 1) || !write_all(fds[1], o.text.data(), o.text.size()))
            ::_exit(1);
        }
        std::fflush(nullptr);
        ::_exit(0);
      }
      ::close(fds[1]);
      w.pid = pid;
      w.fd = fds[0];
    }
    std::size_t received = 0;
    // Parses what a worker sent so far: job announcements and whole results.
    auto parse = [&](Worker& w) {
      for (;;) {
        if (w.buffer.size() < 16) return;
        std::uint64_t header[2];
        std::memcpy(header, w.buffer.data(), sizeof header);
        if (header[1] == ~std::uint64_t{0}) {
          w.current = static_cast<std::size_t>(header[0]);
          w.buffer.erase(0, 16);
          continue;
        }
        if (w.buffer.size() < 16 + 1 + header[1]) return;
        Outcome o;
        o.kind = static_cast<Kind>(static_cast<std::uint8_t>(w.buffer[16]));
        o.text = w.buffer.substr(17, static_cast<std::size_t>(header[1]));
        if (header[0] < n) outcomes[static_cast<std::size_t>(header[0])] = std::move(o);
        w.buffer.erase(0, 17 + static_cast<std::size_t>(header[1]));
        w.current.reset();
        ++received;
        if (done) done(received);
      }
    };
    std::vector<pollfd> fds;
    char chunk[1 << 16];
    std::size_t open = pool.size();
    while (open > 0) {
      fds.clear();
      for (auto& w : pool)
        if (w.fd >= 0) fds.push_back({w.fd, POLLIN, 0});
      if (::poll(fds.data(), fds.size(), -1) < 0) {
        if (errno == EINTR) continue;
        break;
      }
      for (auto& w : pool) {
        if (w.fd < 0) continue;
        const auto it = std::find_if(fds.begin(), fds.end(), [&](const pollfd& p) { return p.fd == w.fd; });
        if (it == fds.end() || it->revents == 0) continue;
        const ssize_t got = ::read(w.fd, chunk, sizeof chunk);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) {
          ::close(w.fd);
          w.fd = -1;
          --open;
          continue;
        }
        w.buffer.append(chunk, static_cast<std::size_t>(got));
        parse(w);
      }
    }
    for (auto& w : pool) {
      int status = 0;
      while (::waitpid(w.pid, &status, 0) < 0 && errno == EINTR) {
      }
      if (w.current && !outcomes[*w.current]) {
        const std::string how = WIFSIGNALED(status) ? fmt::format("was killed by signal {} ({})", WTERMSIG(status),
                                                                  ::strsignal(WTERMSIG(status)))
                                                    : fmt::format("ended with exit status {}", WEXITSTATUS(status));
        outcomes[*w.current] = Outcome{Kind::strategy, fmt::format("job {}: its worker process {}", *w.current + 1, how)};
      }
    }
    ::munmap(shared, sizeof(std::atomic<std::size_t>));
  }
  std::vector<std::string> out(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (!outcomes[i]) throw StrategyError(fmt::format("job {} of {}: no result from its worker", i + 1, n));
    if (outcomes[i]->kind != Kind::ok) rethrow(*outcomes[i]);
    out[i] = std::move(outcomes[i]->text);
  }
  return out;
}

QuietLog::QuietLog() : saved_(static_cast<int>(log().level())) {
  if (saved_ < static_cast<int>(spdlog::level::err)) set_log_level(spdlog::level::err);
}

QuietLog::~QuietLog() { set_log_level(static_cast<spdlog::level::level_enum>(saved_)); }

}  // namespace assignor::host::detail
