// Fuzz target: the config reader (DESIGN 4.2). Any input must either give a Config or an
// InputError (ConfigError is one); nothing else may escape, crash, hang or allocate without bound.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "assignor/errors.hpp"
#include "assignor/host/formats/config_reader.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  assignor::fuzz::quiet_logs();
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const assignor::host::Config config = assignor::host::parse_config(text, "fuzz.yaml", "/fuzz");
    (void)config;
  } catch (const assignor::InputError&) {}
  return 0;
}
