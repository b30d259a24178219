// Standard output carries the command's result and nothing else.
//
// A strategy that runs in this process may print, from any thread, and a thread it started may go
// on printing after assign() returned. So once a strategy has run in process, file descriptor 1
// points at standard error for the rest of the process (divert_standard_output()), and the host
// writes its results to result_output_fd(): a private copy of the original standard output, taken
// before any strategy ran. Nothing a strategy writes to fd 1 can then land inside the JSON.
//
//   const int fd = assignor::host::result_output_fd();   // write the result here, not to fd 1
#pragma once

namespace assignor::host {

// The original standard output (close-on-exec, not 0, 1 or 2), reserved on first call; the first
// call must come before any strategy runs in process (the command makes it at start-up). -1 when
// standard output was closed.
int result_output_fd() noexcept;

// From now on fd 1 is standard error (idempotent); stdio and std::cout are flushed first, so what
// was buffered for the real standard output goes there.
void divert_standard_output() noexcept;

}  // namespace assignor::host
