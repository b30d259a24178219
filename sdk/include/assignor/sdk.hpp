// Every public header of the SDK, in one include (tests/sdk/test_sdk_header.cpp checks that no
// header under include/assignor/ is missing from this list).
//
// The strategy API (what a plugin's assign() uses; changes only with the SDK's minor version, which
// the SONAME and the plugin fingerprint carry): every header below except those marked
// host-facing (four). Host-facing headers are installed for tests and tools but follow what the host
// needs. Code shared only by the SDK's own sources lives in sdk/src/ (not installed, not exported).
#pragma once

#include "assignor/assignment.hpp"
#include "assignor/balance.hpp"
#include "assignor/errors.hpp"
#include "assignor/function_strategy.hpp"
#include "assignor/java_order.hpp"
#include "assignor/kafka_identity.hpp"
#include "assignor/lags.hpp"
#include "assignor/layered_quotas.hpp"
#include "assignor/log.hpp"
#include "assignor/metrics.hpp"  // host-facing (with validation.hpp)
#include "assignor/model.hpp"
#include "assignor/plugin.hpp"
#include "assignor/rack_aware.hpp"
#include "assignor/refiner.hpp"
#include "assignor/scenario.hpp"  // host-facing
#include "assignor/settings.hpp"
#include "assignor/standby_spread.hpp"
#include "assignor/sticky.hpp"
#include "assignor/strategy.hpp"
#include "assignor/subtopology_counts.hpp"
#include "assignor/tag_standbys.hpp"
#include "assignor/task_id.hpp"
#include "assignor/threads.hpp"     // host-facing
#include "assignor/validation.hpp"  // host-facing
#include "assignor/version.hpp"
#include "assignor/warmups.hpp"
#include "assignor/weighted.hpp"
