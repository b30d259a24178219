// The boundary around a child process that runs code the host does not trust (an isolated strategy,
// a plugin's initialisers in a probe): it must not be able to reach the host, its output or any
// other process outside the child's own process group. Entered by the child right after fork,
// before any of that code runs; every layer is inherited by whatever the child starts and cannot
// be undone (no_new_privs).
//
// The layers (docs/reliability.md "The boundary of an isolated plugin" says what each holds, as root
// and as a normal user):
//   descriptors  every inherited descriptor is closed but the result pipe (moved to 3) and standard
//                error; standard input is /dev/null (a child of `assignor serve` cannot read the
//                bridge's requests) and standard output is standard error (child_process.hpp);
//   privileges   no_new_privs; running as root, every capability is dropped (bounding, ambient,
//                effective, permitted), so root's CAP_SYS_PTRACE, CAP_KILL and CAP_DAC_OVERRIDE
//                reach nothing;
//   Landlock     where the kernel has it (5.13+): the child is in a domain of its own, so no process
//                outside it can be ptraced or have its /proc/<pid>/fd, mem or environ opened (the
//                host, the shell, the consumer of the host's pipe); no file can be written, created,
//                removed or truncated (/dev/null excepted), nor a device ioctl issued on one opened
//                now (6.10+); and (6.12+) no signal reaches a process outside the domain, nor an
//                abstract UNIX socket;
//   seccomp-bpf  (libseccomp; EPERM) ptrace, process_vm_readv/writev, the pidfd calls; kill only to
//                its own group (pid 0) or itself; tkill never; tgkill, rt_sigqueueinfo and
//                rt_tgsigqueueinfo only to its own process; setpgid only (0, 0) (it cannot join the
//                host's group and signal it there); fcntl F_SETOWN, F_SETOWN_EX, F_SETSIG and the owner ioctls
//                (SIGIO to the host); the terminal ioctls TIOCSTI, TIOCSPGRP, TIOCSCTTY, TIOCLINUX
//                (make the host a background job, or type into its terminal); prlimit64,
//                setpriority, ioprio_set, the sched_set* calls, migrate_pages and move_pages on any
//                process but itself (the host's limits, priority, CPUs or memory).
// The parent makes itself non-dumpable before forking such a child (protect_parent), so that even
// without Landlock no process of the same user without CAP_SYS_PTRACE can open its /proc/<pid>/fd.
//
//   process::protect_parent();                         // in the parent, before fork
//   ... in the child:
//   std::string why;
//   if (!process::enter_sandbox(pipe_fd, why)) fail(why);   // pipe_fd is 3 from here on
#pragma once

#include <string>

namespace assignor::host::process {

// The layers this machine gives a sandboxed child (checked from the parent, without entering one).
struct SandboxSupport {
  int landlock_abi = 0;  // 0: no Landlock (kernel < 5.13, or disabled); 6+: signals scoped too
  bool seccomp = false;  // seccomp-bpf filters can be loaded
};
SandboxSupport sandbox_support() noexcept;
// "seccomp-bpf, Landlock ABI 7 (processes outside, files, signals)" for people.
std::string describe(const SandboxSupport& support);

// In the parent, before forking a sandboxed child: this process becomes non-dumpable (for good:
// its /proc/<pid> files are then root's, and only a CAP_SYS_PTRACE holder can open its descriptors
// through /proc). Idempotent.
void protect_parent() noexcept;

// In the child (single-threaded, right after fork): confines this process as described above;
// `keep_fd` becomes the descriptor it now has (3). False, with `error` saying which layer, when a
// layer could not be applied (Landlock only counts where the kernel has it).
bool enter_sandbox(int& keep_fd, std::string& error) noexcept;

}  // namespace assignor::host::process
