"""The tools: what people and programs use the engine through (the command line, the
language server, the web page, the AI adapters, the rulebook generator, stats, fuzzing and
scenario runners).  They import the engine (interpreter/) and the language (rulespec.lang)."""
