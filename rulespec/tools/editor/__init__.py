"""Editor support: the language server (LSP) and the TextMate grammar's preview."""
