#include "assignor/host/process/sandbox.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <linux/capability.h>
#include <linux/landlock.h>
#include <linux/sockios.h>
#include <seccomp.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <termios.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <initializer_list>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ASSIGNOR_SANDBOX_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define ASSIGNOR_SANDBOX_ASAN 1
#endif

#ifdef ASSIGNOR_SANDBOX_ASAN
namespace {
// Set in a child once it is in the sandbox (sanitizer builds only).
volatile int sandboxed_child = 0;
}  // namespace

// LeakSanitizer's leak check at exit stops the process's threads with ptrace, which the sandbox's
// seccomp filter refuses: in a sandboxed child the check would die with "LeakSanitizer has
// encountered a fatal error" and turn the plugin's own exit status into 1. LSan asks this hook
// before it checks; the host and every process outside the sandbox keep their leak check.
extern "C" int __lsan_is_turned_off() { return sandboxed_child; }
#endif

namespace assignor::host::process {

namespace {

// Landlock's ABI as the kernel defines it (include/uapi/linux/landlock.h). Debian 12's headers stop
// at ABI 2; the rights and the ruleset fields of later ABIs are only used when the kernel reports
// that ABI, and an older kernel reads only the part of the structure its ABI knows.
constexpr std::uint64_t kAccessFsTruncate = 1ULL << 14;        // ABI 3
constexpr std::uint64_t kAccessFsIoctlDev = 1ULL << 15;        // ABI 5
constexpr std::uint64_t kScopeAbstractUnixSocket = 1ULL << 0;  // ABI 6
constexpr std::uint64_t kScopeSignal = 1ULL << 1;              // ABI 6

struct RulesetAttr {  // struct landlock_ruleset_attr, ABI 6
  std::uint64_t handled_access_fs = 0;
  std::uint64_t handled_access_net = 0;  // ABI 4
  std::uint64_t scoped = 0;              // ABI 6
};

int landlock_abi() noexcept {
#ifdef SYS_landlock_create_ruleset
  const long abi = ::syscall(SYS_landlock_create_ruleset, nullptr, 0, LANDLOCK_CREATE_RULESET_VERSION);
  return abi > 0 ? static_cast<int>(abi) : 0;
#else
  return 0;
#endif
}

// Every file right that writes, creates, removes or renames, and device ioctls: none is granted
// (but writing /dev/null), so the child can change no file (the host's output, a cgroup's freezer).
// Reading and executing are left alone: the child opens the plugin's libraries.
std::uint64_t handled_fs_rights(int abi) noexcept {
  std::uint64_t rights = LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR |
                         LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_DIR |
                         LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO |
                         LANDLOCK_ACCESS_FS_MAKE_BLOCK | LANDLOCK_ACCESS_FS_MAKE_SYM;
  if (abi >= 2) rights |= LANDLOCK_ACCESS_FS_REFER;
  if (abi >= 3) rights |= kAccessFsTruncate;
  if (abi >= 5) rights |= kAccessFsIoctlDev;
  return rights;
}

// Puts this process in a Landlock domain of its own, where the kernel has Landlock (else the other
// layers hold the host: see the header). False, with `error`, when the kernel has it and refused.
bool enter_landlock(std::string& error) noexcept {
#ifdef SYS_landlock_create_ruleset
  const int abi = landlock_abi();
  if (abi == 0) return true;
  RulesetAttr attr;
  attr.handled_access_fs = handled_fs_rights(abi);
  if (abi >= 6) attr.scoped = kScopeSignal | kScopeAbstractUnixSocket;
  const std::size_t size = abi >= 6 ? sizeof attr : abi >= 4 ? 2 * sizeof(std::uint64_t) : sizeof(std::uint64_t);
  const int ruleset = static_cast<int>(::syscall(SYS_landlock_create_ruleset, &attr, size, 0));
  if (ruleset < 0) {
    error = fmt::format("Landlock: cannot create a ruleset: {}", std::strerror(errno));
    return false;
  }
  // /dev/null stays writable (a library that sends its output there must not fail).
  const int null = ::open("/dev/null", O_PATH | O_CLOEXEC);
  if (null >= 0) {
    landlock_path_beneath_attr rule{};
    rule.allowed_access = LANDLOCK_ACCESS_FS_WRITE_FILE | (abi >= 3 ? kAccessFsTruncate : 0);
    rule.parent_fd = null;
    ::syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &rule, 0);
    ::close(null);
  }
  const long entered = ::syscall(SYS_landlock_restrict_self, ruleset, 0);
  const int saved = errno;
  ::close(ruleset);
  if (entered != 0) {
    error = fmt::format("Landlock: cannot enter the domain: {}", std::strerror(saved));
    return false;
  }
  return true;
#else
  (void)error;
  return true;
#endif
}

// Root's capabilities, all of them, for good: the bounding set first (that needs CAP_SETPCAP),
// then the ambient, effective, permitted and inheritable sets.
bool drop_capabilities(std::string& error) noexcept {
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3]{};
  if (::syscall(SYS_capget, &header, data) != 0) {
    error = fmt::format("cannot read the capabilities: {}", std::strerror(errno));
    return false;
  }
  bool any = false;
  for (const auto& d : data) any = any || d.effective != 0 || d.permitted != 0 || d.inheritable != 0;
  if (!any && ::geteuid() != 0) return true;  // a normal user: nothing to drop
  for (int cap = 0; cap < 64; ++cap)
    if (::prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 && errno == EINVAL) break;  // past the last one
  ::prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
  __user_cap_data_struct none[_LINUX_CAPABILITY_U32S_3]{};
  if (::syscall(SYS_capset, &header, none) != 0) {
    error = fmt::format("cannot drop the capabilities: {}", std::strerror(errno));
    return false;
  }
  return true;
}

// The seccomp-bpf filter: everything allowed but what reaches another process (EPERM). Arguments
// are compared as the full 64-bit register: a rule allows exact values only (0, this process's pid),
// so a value with garbage in the upper half is refused rather than let through (the kernel would
// read only the lower half).
bool load_seccomp(std::string& error) noexcept {
  scmp_filter_ctx ctx = ::seccomp_init(SCMP_ACT_ALLOW);  // other architectures' calls: killed
  if (ctx == nullptr) {
    error = "seccomp: cannot create a filter";
    return false;
  }
  const auto self = static_cast<scmp_datum_t>(::getpid());
  const std::uint32_t deny = SCMP_ACT_ERRNO(EPERM);
  int rc = 0;
  auto never = [&](int call) {
    if (rc == 0) rc = ::seccomp_rule_add(ctx, deny, call, 0);
  };
  auto rule = [&](int call, scmp_arg_cmp comparison) {
    if (rc == 0) rc = ::seccomp_rule_add(ctx, deny, call, 1, comparison);
  };
  // Refused unless argument `arg` is one of `allowed` (ascending). A rule compares an argument
  // once, so every gap between allowed values is refused by its own rules: below the first and
  // above the last by one comparison, a gap between two by the aligned power-of-two blocks that
  // tile it (at most 2 x 64 masked comparisons).
  auto only = [&](int call, unsigned arg, std::initializer_list<scmp_datum_t> allowed) {
    scmp_datum_t low = 0;  // the first value not yet accounted for
    bool first = true;
    for (const scmp_datum_t value : allowed) {
      if (first && value > 0) rule(call, SCMP_CMP(arg, SCMP_CMP_LT, value));
      if (!first) {
        for (scmp_datum_t at = low; at < value;) {                               // [low, value - 1] in aligned blocks
          scmp_datum_t size = at == 0 ? scmp_datum_t{1} << 63 : at & (~at + 1);  // at's alignment
          while (size > value - at) size >>= 1;
          rule(call, SCMP_CMP(arg, SCMP_CMP_MASKED_EQ, ~(size - 1), at));
          at += size;
        }
      }
      first = false;
      low = value + 1;
    }
    rule(call, SCMP_CMP(arg, SCMP_CMP_GT, low - 1));
  };
  // Refused when the lower 32 bits of argument `arg` (a command: the kernel reads an int) are `value`.
  auto not_command = [&](int call, unsigned arg, std::uint32_t value) {
    rule(call, SCMP_CMP(arg, SCMP_CMP_MASKED_EQ, 0xffffffffULL, value));
  };
  for (const int call : {SCMP_SYS(ptrace), SCMP_SYS(process_vm_readv), SCMP_SYS(process_vm_writev),
                         SCMP_SYS(pidfd_open), SCMP_SYS(pidfd_getfd), SCMP_SYS(pidfd_send_signal), SCMP_SYS(tkill)})
    never(call);
  only(SCMP_SYS(kill), 0, {0, self});  // its own process group, or itself
  for (const int call : {SCMP_SYS(tgkill), SCMP_SYS(rt_sigqueueinfo), SCMP_SYS(rt_tgsigqueueinfo)})
    only(call, 0, {self});          // its own threads only
  only(SCMP_SYS(setpgid), 0, {0});  // setpgid(0, 0): a group of its own, never the host's
  only(SCMP_SYS(setpgid), 1, {0});
  only(SCMP_SYS(setpriority), 0, {0});  // PRIO_PROCESS of itself (0) only
  only(SCMP_SYS(setpriority), 1, {0});
  only(SCMP_SYS(ioprio_set), 0, {1});  // IOPRIO_WHO_PROCESS of itself (0) only
  only(SCMP_SYS(ioprio_set), 1, {0});
  for (const int call :
       {SCMP_SYS(prlimit64), SCMP_SYS(sched_setaffinity), SCMP_SYS(sched_setscheduler), SCMP_SYS(sched_setparam),
        SCMP_SYS(sched_setattr), SCMP_SYS(migrate_pages), SCMP_SYS(move_pages)})
    only(call, 0, {0});  // itself (pid 0) only
  for (const std::uint32_t command : {F_SETOWN, F_SETOWN_EX, F_SETSIG}) not_command(SCMP_SYS(fcntl), 1, command);
  for (const std::uint32_t request : {std::uint32_t{TIOCSTI}, std::uint32_t{TIOCSPGRP}, std::uint32_t{TIOCSCTTY},
                                      std::uint32_t{TIOCLINUX}, std::uint32_t{FIOSETOWN}, std::uint32_t{SIOCSPGRP}})
    not_command(SCMP_SYS(ioctl), 1, request);
  if (rc == 0) rc = ::seccomp_load(ctx);
  ::seccomp_release(ctx);
  if (rc != 0) {
    error = fmt::format("seccomp: cannot load the filter: {}", std::strerror(-rc));
    return false;
  }
  return true;
}

}  // namespace

SandboxSupport sandbox_support() noexcept {
  SandboxSupport out;
  out.landlock_abi = landlock_abi();
  // SECCOMP_GET_ACTION_AVAIL answers without installing anything (Linux 4.14+).
  const std::uint32_t action = SECCOMP_RET_ERRNO;
  out.seccomp = ::syscall(SYS_seccomp, 2 /* SECCOMP_GET_ACTION_AVAIL */, 0, &action) == 0;
  return out;
}

std::string describe(const SandboxSupport& support) {
  std::string out = support.seccomp ? "seccomp-bpf" : "no seccomp-bpf";
  if (support.landlock_abi == 0) return out + ", no Landlock (the host is kept non-dumpable instead)";
  return out + fmt::format(", Landlock ABI {} (processes outside, files{})", support.landlock_abi,
                           support.landlock_abi >= 6 ? ", signals" : "");
}

void protect_parent() noexcept { ::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0); }

bool enter_sandbox(int& keep_fd, std::string& error) noexcept {
  // Descriptors: the result pipe at 3, standard input from /dev/null, nothing else inherited.
  constexpr int kResult = 3;
  if (keep_fd != kResult) {
    if (::dup2(keep_fd, kResult) < 0) {
      error = fmt::format("cannot move the result pipe: {}", std::strerror(errno));
      return false;
    }
    ::close(keep_fd);
    keep_fd = kResult;
  }
  ::fcntl(kResult, F_SETFD, FD_CLOEXEC);
  if (const int null = ::open("/dev/null", O_RDONLY | O_CLOEXEC); null >= 0) {
    ::dup2(null, STDIN_FILENO);
    ::close(null);
  }
  if (::syscall(SYS_close_range, kResult + 1, ~0U, 0) != 0) {
    rlimit files{};
    const rlim_t last = ::getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur != RLIM_INFINITY
                            ? std::min<rlim_t>(files.rlim_cur, rlim_t{1} << 20)
                            : rlim_t{1} << 16;
    for (rlim_t fd = kResult + 1; fd < last; ++fd) ::close(static_cast<int>(fd));
  }
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
    error = fmt::format("cannot set no_new_privs: {}", std::strerror(errno));
    return false;
  }
#ifdef ASSIGNOR_SANDBOX_ASAN
  sandboxed_child = 1;
#endif
  return drop_capabilities(error) && enter_landlock(error) && load_seccomp(error);
}

}  // namespace assignor::host::process
