#include "assignor/host/process/parallel.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <new>
#include <optional>
#include <thread>

#include "assignor/errors.hpp"
#include "assignor/host/process/child_process.hpp"
#include "assignor/host/process/frames.hpp"
#include "assignor/host/support/errors.hpp"
#include "assignor/host/support/printable.hpp"

namespace assignor::host::process {

namespace {

// A job's result: its text, or the failure it threw (kind and message).
struct Outcome {
  std::optional<ErrorKind> failure;
  std::string text;
};

Outcome run_one(const std::function<std::string(std::size_t)>& job, std::size_t i) {
  try {
    return {std::nullopt, job(i)};
  } catch (const std::exception& e) {
    return {error_kind(e), e.what()};
  }
}

std::optional<std::size_t> job_word(const Frame& frame, std::size_t n) {
  if (frame.words.size() != 2) return std::nullopt;
  std::size_t i = 0;
  const std::string& w = frame.words[1];
  const auto [ptr, ec] = std::from_chars(w.data(), w.data() + w.size(), i);
  if (ec != std::errc() || ptr != w.data() + w.size() || i >= n) return std::nullopt;
  return i;
}

// The worker's loop: takes the next job from the shared counter until none is left.
void work(int fd, std::atomic<std::size_t>& next, std::size_t n, const std::function<std::string(std::size_t)>& job) {
  for (;;) {
    const std::size_t i = next.fetch_add(1);
    if (i >= n) break;
    // Announce the job first: a crash in it is then known to be this job's.
    if (!write_all(fd, encode_frame({"start", std::to_string(i)}, ""))) ::_exit(1);
    const Outcome o = run_one(job, i);
    const std::string frame =
        o.failure ? failure_frame(*o.failure, o.text) : encode_frame({"done", std::to_string(i)}, o.text);
    if (!write_all(fd, frame)) ::_exit(1);
  }
  std::fflush(nullptr);
  ::_exit(0);
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
    void* shared =
        ::mmap(nullptr, sizeof(std::atomic<std::size_t>), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (shared == MAP_FAILED)
      throw InputError(fmt::format("cannot share memory with workers: {}", std::strerror(errno)));
    auto* next = new (shared) std::atomic<std::size_t>(0);
    struct Worker {
      ChildGroup::Child child;
      FrameReader reader;
      std::optional<std::size_t> current;  // the job it reported starting last (for a crash)
      std::string broken;                  // why its stream stopped making sense
      int exit_fd = -1;                    // readable when the worker has exited (a pidfd)
    };
    std::size_t received = 0;
    {
      ChildGroup group;
      std::vector<Worker> pool(workers);
      for (auto& w : pool) {
        try {
          w.child = group.spawn([&](int fd) { work(fd, *next, n, job); }, 0);
          w.exit_fd = exit_watch(w.child.pid);
        } catch (const std::runtime_error& e) {
          ::munmap(shared, sizeof(std::atomic<std::size_t>));
          throw InputError(fmt::format("cannot start a worker process: {}", e.what()));
        }
      }
      // Takes the frames a worker sent so far: job announcements and whole results.
      auto take = [&](Worker& w) {
        while (auto frame = w.reader.next()) {
          if (frame->kind() == "start") {
            w.current = job_word(*frame, n);
            if (!w.current) w.broken = "a malformed job announcement";
            continue;
          }
          std::optional<std::size_t> i = frame->kind() == "done" ? job_word(*frame, n) : w.current;
          Outcome o;
          if (frame->kind() == "fail" && frame->words.size() == 2) o.failure = error_kind_named(frame->words[1]);
          if (!i || (frame->kind() == "fail" && !o.failure) || (frame->kind() != "fail" && frame->kind() != "done")) {
            w.broken = fmt::format("an unexpected frame '{}'", printable(frame->kind()));
            continue;
          }
          o.text = std::move(frame->payload);
          outcomes[*i] = std::move(o);
          w.current.reset();
          ++received;
          if (done) done(received);
        }
        if (w.reader.malformed()) w.broken = w.reader.error();
      };
      // A worker's results end when its pipe does, or when the worker itself has exited: a process
      // a job started (a daemon) may hold the pipe's write end open for ever.
      std::vector<pollfd> fds;
      char chunk[1 << 16];
      std::size_t open = pool.size();
      auto read_some = [&](Worker& w) {
        const ssize_t got = ::read(w.child.fd, chunk, sizeof chunk);
        if (got > 0) {
          w.reader.feed(std::string_view(chunk, static_cast<std::size_t>(got)));
          take(w);
        }
        return got;
      };
      auto finish = [&](Worker& w) {
        ::close(w.child.fd);
        w.child.fd = -1;
        --open;
      };
      while (open > 0) {
        fds.clear();
        for (auto& w : pool)
          if (w.child.fd >= 0) {
            fds.push_back({w.child.fd, POLLIN, 0});
            fds.push_back({w.exit_fd, POLLIN, 0});
          }
        if (::poll(fds.data(), fds.size(), 1000) < 0) {
          if (errno == EINTR) continue;
          break;
        }
        for (auto& w : pool) {
          if (w.child.fd < 0) continue;
          const auto it = std::find_if(fds.begin(), fds.end(), [&](const pollfd& p) { return p.fd == w.child.fd; });
          if (it == fds.end()) continue;
          if (it->revents != 0) {
            const ssize_t got = read_some(w);
            if ((got < 0 && errno != EINTR) || got == 0 || !w.broken.empty()) finish(w);
          } else if ((std::next(it)->revents & POLLIN) != 0 || (w.exit_fd < 0 && has_exited(w.child.pid))) {
            // The worker has ended, so everything it wrote is in the pipe: take what is there.
            ::fcntl(w.child.fd, F_SETFL, ::fcntl(w.child.fd, F_GETFL) | O_NONBLOCK);
            for (;;) {
              const ssize_t got = read_some(w);
              if ((got > 0 && w.broken.empty()) || (got < 0 && errno == EINTR)) continue;
              break;
            }
            finish(w);
          }
        }
      }
      for (auto& w : pool)
        if (w.exit_fd >= 0) ::close(w.exit_fd);
      for (auto& w : pool) {
        const int status = group.reap(w.child.pid);
        if (w.current && !outcomes[*w.current]) {
          const std::string how = w.broken.empty() ? fmt::format("ended with {}", describe_wait_status(status))
                                                   : fmt::format("sent {}", w.broken);
          outcomes[*w.current] =
              Outcome{ErrorKind::strategy, fmt::format("job {}: its worker process {}", *w.current + 1, how)};
        }
      }
    }
    ::munmap(shared, sizeof(std::atomic<std::size_t>));
  }
  std::vector<std::string> out(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (!outcomes[i]) throw StrategyError(fmt::format("job {} of {}: no result from its worker", i + 1, n));
    if (outcomes[i]->failure) throw_error(*outcomes[i]->failure, outcomes[i]->text);
    out[i] = std::move(outcomes[i]->text);
  }
  return out;
}

}  // namespace assignor::host::process
