// Whether this process may run a plugin library: who could change what it is about to run (the
// file, its directory, every directory above, and every directory the library's own search path
// names). Anyone who can write one of them, or owns it while being neither root nor us, could put
// their code in the host.
#pragma once

#include <filesystem>
#include <string>

namespace assignor::host::loading {

// Why `real` (a plugin file, or with `directory` a directory plugins are loaded from; symlinks
// already resolved) must not be trusted, or "" when it can be. The reason says how to fix it.
std::string untrusted_reason(const std::filesystem::path& real, bool directory);

}  // namespace assignor::host::loading
