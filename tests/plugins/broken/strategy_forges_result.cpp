// A strategy that writes the isolated run's answer itself, on the result pipe (descriptor 3 in the
// sandbox), and ends the process with _exit(0) before the host's code could answer: what issue 32
// found the host believed (a record with assign_ms -123456, NaN or inf printed as it was). `forge`:
//   valid_frame    a whole, well-formed answer (everything on the first client) after sleeping
//                  `sleep_ms`: the host takes the placements (they are the strategy's answer) and
//                  measures the time itself
//   negative_time  the answer with an extra word: assign_ms -123456
//   nan_time       the same with nan
//   huge_count     an answer that claims 2^40 placements
// In process, descriptor 3 is whatever the host has there (its reserved standard output).
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <thread>

#include "broken_plugin.hpp"

namespace {

constexpr int kResultPipe = 3;

std::string frame(const std::string& words, const std::string& payload) {
  return words + " " + std::to_string(payload.size()) + "\n" + payload;
}

class ForgesResult final : public assignor::Strategy {
 public:
  explicit ForgesResult(const assignor::StrategyParams& params)
      : forge_(params.get_string("forge", "valid_frame")), sleep_ms_(params.get_int("sleep_ms", 0)) {
    params.reject_unknown({"forge", "sleep_ms"});
  }
  assignor::Assignment assign(const assignor::AssignmentInput& in) override {
    const assignor::Assignment answer = assignor_test_plugins::all_on_first_client(in.cluster);
    std::string placements;
    for (const auto& p : answer.actives)
      for (const std::uint32_t field : {p.task, p.client, p.thread})
        placements.append(reinterpret_cast<const char*>(&field), sizeof field);
    const std::string actives = std::to_string(answer.actives.size());
    std::string text;
    if (forge_ == "negative_time")
      text = frame("assignment 0 " + actives + " 0 0 assign_ms -123456", placements);
    else if (forge_ == "nan_time")
      text = frame("assignment 0 " + actives + " 0 0 assign_ms nan", placements);
    else if (forge_ == "huge_count")
      text = frame("assignment 0 1099511627776 0 0", placements);
    else
      text = frame("assignment 0 " + actives + " 0 0", placements);
    if (sleep_ms_ > 0) std::this_thread::sleep_for(std::chrono::milliseconds(sleep_ms_));
    [[maybe_unused]] const auto n = ::write(kResultPipe, text.data(), text.size());
    ::_exit(0);
  }

 private:
  std::string forge_;
  long long sleep_ms_;
};

}  // namespace

ASSIGNOR_PLUGIN(ForgesResult, "test_strategy_forges_result", "1.0.0",
                "writes the isolated run's answer itself (forged timings, counts) and ends the process", 0)
