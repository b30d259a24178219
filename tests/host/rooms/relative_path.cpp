// A fixture for the host's room check (host.rooms.*): a relative path out of the file's folder
// reaches a room's private header without declaring it; the check refuses it.
#include "../tools/parallel.hpp"
