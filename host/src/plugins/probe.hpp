// Opening a plugin library, twice: first in a child process (probe: its initialisers can crash,
// hang or exit without taking the host along, and the answer is its descriptor's fields), then, on
// first use, in this process (open_plugin). Both check the descriptor the same way.
#pragma once

#include <boost/dll/shared_library.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "assignor/host/plugins/plugin_registry.hpp"

namespace assignor::host::loading {

// Opens `where` (already checked: trusted, with the entry point) in this process and checks its
// descriptor; throws PluginError naming the file and the reason.
std::pair<std::shared_ptr<boost::dll::shared_library>, const PluginDescriptor*> open_plugin(const std::string& where);

// Opens `where` in a child process given `time_ms` and returns what its descriptor says; a refusal,
// crash, hang or malformed answer is a PluginError naming the file.
PluginInfo probe(const std::string& where, std::uint64_t time_ms);

}  // namespace assignor::host::loading
