-- ctxls for markdown and JSON buffers (Neovim 0.7 and later): one client
-- per workspace, the directory holding .ctxls.yaml (else .git).
vim.api.nvim_create_autocmd({ 'BufRead', 'BufNewFile' }, { pattern = '*.mdc', command = 'setfiletype markdown' })
local ctxls_clients = {}
vim.api.nvim_create_autocmd('FileType', {
  pattern = { 'markdown', 'json', 'jsonc' },
  callback = function(args)
    local dir = vim.fn.fnamemodify(vim.api.nvim_buf_get_name(args.buf), ':p:h')
    local root = vim.fn.findfile('.ctxls.yaml', dir .. ';')
    if root ~= '' then
      root = vim.fn.fnamemodify(root, ':p:h')
    else
      root = vim.fn.finddir('.git', dir .. ';')
      root = root ~= '' and vim.fn.fnamemodify(root, ':p:h:h') or dir
    end
    if not ctxls_clients[root] then
      ctxls_clients[root] = vim.lsp.start_client({
        name = 'ctxls',
        cmd = { 'ctxls', 'serve' },
        root_dir = root,
      })
    end
    vim.lsp.buf_attach_client(args.buf, ctxls_clients[root])
  end,
})
