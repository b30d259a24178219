// The sandbox of a child that runs untrusted code (process/sandbox.hpp), call by call: a child
// enters it through run_in_child, tries what a hostile plugin would, and answers with what each
// call returned; the expectations come from the rules in the header, not from the filter.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "assignor/host/process/child_process.hpp"
#include "assignor/host/process/sandbox.hpp"

namespace {

using assignor::host::process::ChildEnd;
using assignor::host::process::encode_frame;
using assignor::host::process::run_in_child;
using assignor::host::process::sandbox_support;
using assignor::host::process::write_all;

// Runs each named attempt in one sandboxed child; "name=errno" per line (0: it succeeded).
std::map<std::string, int> attempts_in_sandbox(const std::vector<std::pair<std::string, std::function<long()>>>& tries,
                                               bool sandboxed = true) {
  const auto out = run_in_child(
      [&](int fd) {
        std::string text;
        for (const auto& [name, attempt] : tries) {
          errno = 0;
          const long r = attempt();
          text += name + "=" + std::to_string(r < 0 ? (errno == 0 ? -1 : errno) : 0) + "\n";
        }
        (void)write_all(fd, encode_frame({"tried"}, text));
        ::_exit(0);
      },
      {.time_ms = 60000, .max_bytes = 1 << 20, .sandboxed = sandboxed});
  EXPECT_EQ(out.end, ChildEnd::answered) << out.error;
  std::map<std::string, int> result;
  if (!out.frame) return result;
  std::istringstream in(out.frame->payload);
  std::string line;
  while (std::getline(in, line)) {
    const auto eq = line.find('=');
    result[line.substr(0, eq)] = std::stoi(line.substr(eq + 1));
  }
  return result;
}

TEST(Sandbox, SignalsReachOnlyTheChildsOwnGroupAndItself) {
  const pid_t host = ::getpid();
  const auto r = attempts_in_sandbox({
      {"kill own group", [] { return ::kill(0, 0); }},
      {"kill itself", [] { return ::kill(::getpid(), 0); }},
      {"kill the host", [host] { return ::kill(host, 0); }},
      {"kill the host's group", [host] { return ::kill(-::getpgid(host), 0); }},
      {"kill everyone", [] { return ::kill(-1, 0); }},
      {"kill pid 1", [] { return ::kill(1, 0); }},
      {"kill itself - 1", [] { return ::kill(::getpid() - 1, 0); }},
      {"kill itself + 1", [] { return ::kill(::getpid() + 1, 0); }},
      // The kernel reads an int: the host's pid with garbage above it must not slip through.
      {"kill the host, upper bits set",
       [host] { return ::syscall(SYS_kill, (std::uint64_t{1} << 32) | static_cast<std::uint32_t>(host), 0); }},
      {"tgkill itself", [] { return ::syscall(SYS_tgkill, ::getpid(), ::getpid(), 0); }},
      {"tgkill the host", [host] { return ::syscall(SYS_tgkill, host, host, 0); }},
      {"tkill itself", [] { return ::syscall(SYS_tkill, ::getpid(), 0); }},
      {"sigqueue the host", [host] { return static_cast<long>(::sigqueue(host, 0, sigval{})); }},
      {"pidfd_open the host", [host] { return ::syscall(SYS_pidfd_open, host, 0); }},
      {"setpgid into the host's group", [host] { return static_cast<long>(::setpgid(0, ::getpgid(host))); }},
      {"setpgid(0, 0)", [] { return static_cast<long>(::setpgid(0, 0)); }},
      {"F_SETOWN the host",
       [host] {
         int pair[2];
         if (::pipe(pair) != 0) return -1L;
         return static_cast<long>(::fcntl(pair[0], F_SETOWN, host));
       }},
      {"raise SIGCHLD", [] { return static_cast<long>(::raise(SIGCHLD)); }},  // ignored by default
  });
  EXPECT_EQ(r.at("kill own group"), 0);
  EXPECT_EQ(r.at("kill itself"), 0);
  EXPECT_EQ(r.at("tgkill itself"), 0);
  EXPECT_EQ(r.at("raise SIGCHLD"), 0);
  EXPECT_EQ(r.at("setpgid(0, 0)"), 0);  // a group of its own (it leads one already)
  for (const char* refused :
       {"kill the host", "kill the host's group", "kill everyone", "kill pid 1", "kill itself - 1", "kill itself + 1",
        "kill the host, upper bits set", "tgkill the host", "tkill itself", "sigqueue the host", "pidfd_open the host",
        "setpgid into the host's group", "F_SETOWN the host"})
    EXPECT_EQ(r.at(refused), EPERM) << refused;
}

TEST(Sandbox, TheHostsMemoryDescriptorsAndLimitsAreOutOfReach) {
  const pid_t host = ::getpid();
  const std::string fd1 = "/proc/" + std::to_string(host) + "/fd/1";
  const std::string mem = "/proc/" + std::to_string(host) + "/mem";
  const auto r = attempts_in_sandbox({
      {"open the host's fd 1", [fd1] { return static_cast<long>(::open(fd1.c_str(), O_WRONLY)); }},
      {"open the host's memory", [mem] { return static_cast<long>(::open(mem.c_str(), O_RDWR)); }},
      {"ptrace the host", [host] { return ::ptrace(PTRACE_SEIZE, host, nullptr, nullptr); }},
      {"process_vm_writev",
       [host] {
         char byte = 0;
         iovec local{&byte, 1}, remote{&byte, 1};
         return static_cast<long>(::process_vm_writev(host, &local, 1, &remote, 1, 0));
       }},
      {"prlimit the host",
       [host] {
         rlimit none{0, 0};
         return static_cast<long>(::prlimit(host, RLIMIT_NOFILE, &none, nullptr));
       }},
      {"prlimit itself",
       [] {
         rlimit files{};
         return static_cast<long>(::prlimit(0, RLIMIT_NOFILE, nullptr, &files));
       }},
      {"a descriptor above 3", [] { return static_cast<long>(::fcntl(4, F_GETFD)); }},
      {"read standard input",
       [] {
         char c;
         return static_cast<long>(::read(STDIN_FILENO, &c, 1));  // /dev/null: 0 bytes
       }},
  });
  for (const char* refused : {"open the host's fd 1", "open the host's memory"})
    EXPECT_TRUE(r.at(refused) == EACCES || r.at(refused) == EPERM) << refused << ": " << r.at(refused);
  for (const char* refused : {"ptrace the host", "process_vm_writev", "prlimit the host"})
    EXPECT_EQ(r.at(refused), EPERM) << refused;
  EXPECT_EQ(r.at("prlimit itself"), 0);
  EXPECT_EQ(r.at("a descriptor above 3"), EBADF) << "every inherited descriptor but the result pipe is closed";
  EXPECT_EQ(r.at("read standard input"), 0);
}

TEST(Sandbox, NoFileCanBeWrittenWhereTheKernelHasLandlock) {
  if (sandbox_support().landlock_abi == 0) GTEST_SKIP() << "no Landlock in this kernel";
  const auto dir = std::filesystem::path(::testing::TempDir()) / "assignor-sandbox-write";
  std::filesystem::create_directories(dir);
  const std::string file = (dir / "written").string();
  std::filesystem::remove(file);
  const auto r = attempts_in_sandbox({
      {"create a file", [file] { return static_cast<long>(::open(file.c_str(), O_WRONLY | O_CREAT, 0600)); }},
      {"make a directory", [dir] { return static_cast<long>(::mkdir((dir / "sub").c_str(), 0700)); }},
      {"write /dev/null", [] { return static_cast<long>(::open("/dev/null", O_WRONLY)); }},
      {"read a file", [] { return static_cast<long>(::open("/proc/self/status", O_RDONLY)); }},
  });
  EXPECT_EQ(r.at("create a file"), EACCES);
  EXPECT_EQ(r.at("make a directory"), EACCES);
  EXPECT_EQ(r.at("write /dev/null"), 0);
  EXPECT_EQ(r.at("read a file"), 0);
  EXPECT_FALSE(std::filesystem::exists(file));
}

TEST(Sandbox, WithoutItTheSameChildReachesTheHost) {
  // The control: the calls above are refused by the sandbox, not by something else of the test's.
  const pid_t host = ::getpid();
  const auto r = attempts_in_sandbox({{"kill the host", [host] { return ::kill(host, 0); }},
                                      {"prlimit the host",
                                       [host] {
                                         rlimit files{};
                                         return static_cast<long>(::prlimit(host, RLIMIT_NOFILE, nullptr, &files));
                                       }}},
                                     /*sandboxed=*/false);
  EXPECT_EQ(r.at("kill the host"), 0);
  EXPECT_EQ(r.at("prlimit the host"), 0);
}

}  // namespace
