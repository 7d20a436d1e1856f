-- Neovim as the client of `rulespec lsp` (tests/test_lsp.py runs this headless when nvim is
-- installed; Neovim 0.7 and later). Opens $RULES_FILE, waits for the diagnostics, fixes the line
-- with the error by editing the buffer (Neovim sends an incremental didChange), waits for the
-- diagnostics to clear, asks for a hover and a definition, and writes what it saw as JSON to $OUT.
local out = {}
local file, python = os.getenv("RULES_FILE"), os.getenv("PYTHON")
local id = vim.lsp.start_client({
  name = "rulespec",
  cmd = { python, "-m", "rulespec.tools.cli", "lsp" },
  root_dir = vim.fn.fnamemodify(file, ":h"),
})
vim.cmd("edit " .. vim.fn.fnameescape(file))
local buf = vim.api.nvim_get_current_buf()
vim.lsp.buf_attach_client(buf, id)

local function diags() return vim.diagnostic.get(buf) end
vim.wait(20000, function() return #diags() > 0 end, 50)
out.first = {}
for _, d in ipairs(diags()) do
  table.insert(out.first, { lnum = d.lnum, col = d.col, end_col = d.end_col, message = d.message, severity = d.severity })
end

-- fix the line the error is on: replace it with the line given in $FIXED
local lnum = out.first[1] and out.first[1].lnum or 0
vim.api.nvim_buf_set_lines(buf, lnum, lnum + 1, false, { os.getenv("FIXED") })
out.cleared = vim.wait(20000, function() return #diags() == 0 end, 50)

local function at(row, col)
  return { textDocument = vim.lsp.util.make_text_document_params(buf), position = { line = row, character = col } }
end
local row, col = tonumber(os.getenv("ROW")), tonumber(os.getenv("COL"))
local hover = vim.lsp.buf_request_sync(buf, "textDocument/hover", at(row, col), 20000)
local definition = vim.lsp.buf_request_sync(buf, "textDocument/definition", at(row, col), 20000)
for _, r in pairs(hover or {}) do out.hover = r.result and r.result.contents.value end
for _, r in pairs(definition or {}) do out.definition = r.result end
out.encoding = vim.lsp.get_client_by_id(id).offset_encoding

local f = io.open(os.getenv("OUT"), "w")
f:write(vim.fn.json_encode(out))
f:close()
vim.lsp.stop_client(id)
vim.cmd("qa!")
