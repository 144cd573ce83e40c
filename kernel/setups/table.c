/* The setup table: registry operation name -> setup_<name>. An operation in
 * the registry without a setup is a link error, not a runtime surprise. */
#include "setup.h"

#define NBH_SETUP_DECLARATION(name, ...) extern const struct setup setup_##name;
NBH_OPERATIONS(NBH_SETUP_DECLARATION)

#define NBH_SETUP_ROW(name, ...) [OP_##name] = &setup_##name,
static const struct setup *const setups[N_OPERATIONS] = {NBH_OPERATIONS(NBH_SETUP_ROW)};

const struct setup *setup_for(enum operation op)
{
    return setups[op];
}
