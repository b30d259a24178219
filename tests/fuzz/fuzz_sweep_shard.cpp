// Fuzz target: the reader of a sweep's JSON (`sweep --merge` reads shards with it,
// host/src/tools/sweep.cpp). It must refuse with an InputError or return a sweep whose runs name
// only its scenarios and combinations, and which writes back as JSON that reads as the same sweep.
// Nothing may crash, hang or allocate without bound.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "assignor/errors.hpp"
#include "assignor/host/tools/sweep.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace assignor;
  fuzz::quiet_logs();
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto sweep = fuzz::accepted(text, [](std::string_view t) { return host::read_sweep_json(t, "shard.json"); });
  if (!sweep) return 0;
  for (const auto& run : sweep->runs)
    if (run.scenario >= sweep->scenarios.size() || run.combination >= sweep->combinations.size())
      fuzz::fail("a shard's runs name only its scenarios and combinations", text, "");
  const std::string again = host::sweep_json(*sweep).dump();
  try {
    const host::Sweep back = host::read_sweep_json(again, "written.json");
    if (back.runs.size() != sweep->runs.size() || back.fingerprint != sweep->fingerprint)
      fuzz::fail("a shard written back reads as itself", again, text);
  } catch (const InputError& e) {
    fuzz::fail("a shard written back is one the reader accepts", e.what(), again);
  }
  return 0;
}
