// A plugin built against API 2, as the SDK of that version built every plugin: its entry point is a
// Boost.DLL alias (a variable `assignor_plugin_entry` holding the address of a function that returns
// the descriptor), its descriptor says API version 2, and it carries no name note. Otherwise it is
// complete and valid for this host's compiler. The host must refuse it by number and say how to
// rebuild it, never call the variable as if it were the function.
//
// It cannot include plugin.hpp (which now declares `assignor_plugin_entry` as a function), so it
// declares the descriptor as plugin.hpp of API 2 did: field for field what API 3 still has.
#include <boost/dll/alias.hpp>

#include <cstdint>

#include "assignor/assignment.hpp"
#include "assignor/settings.hpp"
#include "assignor/strategy.hpp"
#include "assignor/version.hpp"

namespace {

struct PluginDescriptorOfApi2 {
  std::uint32_t api_version;
  const char* fingerprint;
  const char* name;
  const char* version;
  const char* description;
  std::uint32_t capabilities;
  assignor::Strategy* (*create)(const assignor::StrategyParams& params);
  void (*destroy)(assignor::Strategy* strategy) noexcept;
};

class AllOnFirstClient final : public assignor::Strategy {
 public:
  assignor::Assignment assign(const assignor::AssignmentInput& in) override {
    assignor::Assignment out;
    for (assignor::TaskIndex t = 0; t < in.cluster.task_count(); ++t) out.actives.push_back({t, 0});
    return out;
  }
};

assignor::Strategy* create(const assignor::StrategyParams&) { return new AllOnFirstClient(); }
void destroy(assignor::Strategy* strategy) noexcept { delete strategy; }

const PluginDescriptorOfApi2 descriptor{
    2, assignor::kBuildFingerprint, "test_api2", "1.0.0", "a plugin built against API 2", 0, &create, &destroy};

}  // namespace

// API 2's ASSIGNOR_PLUGIN, after its descriptor:
namespace assignor_plugin_detail {
const PluginDescriptorOfApi2* entry() { return &descriptor; }
}  // namespace assignor_plugin_detail
namespace assignor_plugin_export {
using assignor_plugin_detail::entry;
BOOST_DLL_ALIAS(entry, assignor_plugin_entry)
}  // namespace assignor_plugin_export
