"""Fuzzing: whole-game checks, the counterfactual secrecy check, rulespec fuzz's engine."""
