// Every public header of the SDK, in one include (tests/sdk/test_sdk_header.cpp checks that no
// header under include/assignor/ is missing from this list).
#pragma once

#include "assignor/assignment.hpp"
#include "assignor/balance.hpp"
#include "assignor/errors.hpp"
#include "assignor/lags.hpp"
#include "assignor/log.hpp"
#include "assignor/metrics.hpp"
#include "assignor/model.hpp"
#include "assignor/plugin.hpp"
#include "assignor/rack_aware.hpp"
#include "assignor/scenario.hpp"
#include "assignor/settings.hpp"
#include "assignor/sticky.hpp"
#include "assignor/strategy.hpp"
#include "assignor/tag_standbys.hpp"
#include "assignor/task_id.hpp"
#include "assignor/threads.hpp"
#include "assignor/validation.hpp"
#include "assignor/version.hpp"
#include "assignor/warmups.hpp"
#include "assignor/weighted.hpp"
