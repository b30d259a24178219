// Everything a strategy author needs, in one include.
#pragma once

#include "assignor/assignment.hpp"
#include "assignor/balance.hpp"
#include "assignor/errors.hpp"
#include "assignor/lags.hpp"
#include "assignor/log.hpp"
#include "assignor/metrics.hpp"
#include "assignor/model.hpp"
#include "assignor/plugin.hpp"
#include "assignor/settings.hpp"
#include "assignor/strategy.hpp"
#include "assignor/task_id.hpp"
#include "assignor/validation.hpp"
#include "assignor/version.hpp"
#include "assignor/warmups.hpp"
