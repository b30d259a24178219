#include "assignor/host/support/standard_output.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <mutex>

namespace assignor::host {

namespace {

std::once_flag g_reserved;
int g_result_fd = -1;

std::once_flag g_diverted;

}  // namespace

int result_output_fd() noexcept {
  std::call_once(g_reserved, [] {
    // Above the standard three, so that nothing that closes and reopens 0-2 can take it.
    if (::fcntl(STDOUT_FILENO, F_GETFD) != -1) g_result_fd = ::fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
  });
  return g_result_fd;
}

void divert_standard_output() noexcept {
  (void)result_output_fd();  // reserved before fd 1 changes
  std::call_once(g_diverted, [] {
    std::cout.flush();
    std::fflush(stdout);
    ::dup2(STDERR_FILENO, STDOUT_FILENO);
  });
}

}  // namespace assignor::host
