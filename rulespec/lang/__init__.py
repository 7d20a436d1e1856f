"""The language: rules text to a checked Model (grammar, parser, AST, checker,
diagnostics, the phase graph, the English of the rules, the formatter).  It imports
neither the engine nor the tools."""
