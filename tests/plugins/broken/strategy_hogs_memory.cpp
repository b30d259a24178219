// A strategy whose assign() allocates (and touches) memory 64 MiB at a time until allocation fails.
// Only ever run with `isolation: process` and a small limits.memory_mb; as a safety net for a run
// without a limit it gives up (throws) after `max_mb` (default 16384) MiB.
#include <cstring>
#include <memory>
#include <stdexcept>
#include <vector>

#include "broken_plugin.hpp"

namespace {

class HogsMemory final : public assignor::Strategy {
 public:
  explicit HogsMemory(const assignor::StrategyParams& params) : max_mb_(params.get_int("max_mb", 16384)) {
    params.reject_unknown({"max_mb"});
  }
  assignor::Assignment assign(const assignor::AssignmentInput&) override {
    constexpr std::size_t kChunk = std::size_t{64} << 20;
    std::vector<std::unique_ptr<char[]>> held;
    for (std::int64_t mb = 0; mb < max_mb_; mb += 64) {
      held.emplace_back(new char[kChunk]);
      std::memset(held.back().get(), 1, kChunk);
    }
    throw std::runtime_error("allocated max_mb without running out of memory");
  }

 private:
  std::int64_t max_mb_;
};

}  // namespace

ASSIGNOR_PLUGIN(HogsMemory, "test_strategy_hogs_memory", "1.0.0", "strategy whose assign allocates until it fails", 0)
