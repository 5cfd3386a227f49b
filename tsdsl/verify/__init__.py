"""Machine checks of transition systems: exhaustive and randomized verification,
exact loss by search, generic oracles and the oracle checker."""
