// A fixture for the host's room check (tests/host/CMakeLists.txt, host.rooms.*): read as a file
// of room 'formats', which declares only 'support', this include of room 'tools' must fail the check.
#include "assignor/host/support/printable.hpp"
#include "assignor/host/tools/simulation.hpp"
