// Declares high availability but ignores lags: every task active on the first client, even one
// that client must restore while another runs it. The host must hold it to its declaration.
#include "broken_plugin.hpp"

ASSIGNOR_PLUGIN(assignor::FunctionStrategy<assignor_test_plugins::all_on_first_client_strategy>,
                "test_declares_ha_restores", "1.0.0", "declares high availability, returns restoring actives",
                assignor::kCapabilityHighAvailability)
