"""AI adapters: rules as integer decisions and tensors, OpenSpiel, PettingZoo, agents."""
