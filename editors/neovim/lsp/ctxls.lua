-- ctxls for Neovim 0.11 and later, in nvim-lspconfig's format: save this
-- file as lsp/ctxls.lua in your configuration (~/.config/nvim/lsp/) and
-- call vim.lsp.enable('ctxls'), or give the table to
-- vim.lsp.config('ctxls', {...}). Cursor's .mdc rules need a filetype:
-- vim.filetype.add({ extension = { mdc = 'markdown' } }).
return {
  cmd = { 'ctxls', 'serve' },
  -- Memory files, skills, commands, rules and context libraries are
  -- markdown; plugin manifests, .mcp.json and .lsp.json are JSON.
  filetypes = { 'markdown', 'json', 'jsonc' },
  root_markers = { '.ctxls.yaml', '.git' },
}
