-- Neovim end-to-end check of ctxls: the built-in LSP client starts
-- `ctxls serve` for markdown buffers, and this script asks for completion,
-- hover and diagnostics in the file given on the command line, then writes
-- what it got as JSON to $CTXLS_NVIM_OUT and quits.
--
-- Environment: CTXLS_BIN (server binary, named ctxls), CTXLS_ROOT
-- (workspace root), CTXLS_NVIM_OUT (result file). Works with Neovim 0.7
-- and later.

local bin = assert(os.getenv('CTXLS_BIN'), 'CTXLS_BIN not set')
local root = assert(os.getenv('CTXLS_ROOT'), 'CTXLS_ROOT not set')
local out = assert(os.getenv('CTXLS_NVIM_OUT'), 'CTXLS_NVIM_OUT not set')
local timeout = 20000

local result = { steps = {}, errors = {} }

local function note(msg)
  table.insert(result.steps, msg)
end

local function fail(msg)
  table.insert(result.errors, msg)
end

local function finish()
  local f = assert(io.open(out, 'w'))
  f:write(vim.json.encode(result))
  f:close()
  vim.cmd('qall!')
end

-- The configuration is one of the README's, from editors/neovim, with the
-- binary under test first on PATH: CTXLS_NVIM_CONFIG=0.7 (the default) runs
-- ctxls.lua; 0.11 runs lsp/ctxls.lua, nvim-lspconfig's format, through
-- vim.lsp.enable where Neovim has it (0.11 and later).
local here = vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h')
local configs = vim.fn.fnamemodify(here .. '/../../../editors/neovim', ':p'):gsub('/$', '')
vim.env.PATH = vim.fn.fnamemodify(bin, ':p:h') .. ':' .. vim.env.PATH
if os.getenv('CTXLS_NVIM_CONFIG') == '0.11' then
  -- Neovim 0.7 detects filetypes with filetype.lua, which vim.filetype.add
  -- extends, only when asked to; later versions always do.
  vim.g.do_filetype_lua = 1
  vim.filetype.add({ extension = { mdc = 'markdown' } })
  if vim.lsp.config and vim.lsp.enable then
    vim.opt.runtimepath:prepend(configs)
    vim.lsp.enable('ctxls')
    result.config = 'vim.lsp.enable'
  else
    -- Before 0.11 Neovim has no vim.lsp.enable: start the configuration's
    -- cmd for its filetypes, in the root its markers give, as
    -- vim.lsp.enable does.
    local config = dofile(configs .. '/lsp/ctxls.lua')
    local started = {}
    vim.api.nvim_create_autocmd('FileType', {
      pattern = config.filetypes,
      callback = function(args)
        local dir = vim.fn.fnamemodify(vim.api.nvim_buf_get_name(args.buf), ':p:h')
        local root = dir
        for _, marker in ipairs(config.root_markers) do
          local f = vim.fn.findfile(marker, dir .. ';')
          if f ~= '' then
            root = vim.fn.fnamemodify(f, ':p:h')
            break
          end
          local d = vim.fn.finddir(marker, dir .. ';')
          if d ~= '' then
            root = vim.fn.fnamemodify(d, ':p:h:h')
            break
          end
        end
        if not started[root] then
          started[root] = vim.lsp.start_client({ name = 'ctxls', cmd = config.cmd, root_dir = root })
        end
        vim.lsp.buf_attach_client(args.buf, started[root])
      end,
    })
    result.config = 'lsp/ctxls.lua without vim.lsp.enable'
  end
else
  dofile(configs .. '/ctxls.lua')
  result.config = 'ctxls.lua'
end

local function clients(bufnr)
  if vim.lsp.get_clients then
    return vim.lsp.get_clients({ bufnr = bufnr, name = 'ctxls' })
  end
  local list = {}
  for _, c in pairs(vim.lsp.buf_get_clients(bufnr)) do
    if c.name == 'ctxls' then
      table.insert(list, c)
    end
  end
  return list
end

-- Runs once the file named on the command line is loaded.
local function run()
  local bufnr = vim.api.nvim_get_current_buf()
  result.file = vim.api.nvim_buf_get_name(bufnr)
  result.filetype = vim.bo[bufnr].filetype

  local attached = vim.wait(timeout, function()
    local cs = clients(bufnr)
    return #cs > 0 and cs[1].initialized ~= false and cs[1].server_capabilities ~= nil
  end, 50)
  if not attached then
    fail('ctxls did not attach to the buffer')
    return finish()
  end
  local client = clients(bufnr)[1]
  result.offset_encoding = client.offset_encoding
  note('attached')

  -- The first `python:` of the file (0-based line and column; the line is
  -- ASCII up to there, so bytes and UTF-16 units agree).
  local lines = vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)
  local line, col
  for i, l in ipairs(lines) do
    local s, e = string.find(l, '`python:common_issues', 1, true)
    if s then
      line, col = i - 1, e - #'common_issues'
      break
    end
  end
  if not line then
    fail('no `python:common_issues` in the file')
    return finish()
  end
  result.position = { line = line, character = col }
  local pos = { textDocument = { uri = vim.uri_from_bufnr(bufnr) }, position = { line = line, character = col } }

  local resp, err = vim.lsp.buf_request_sync(bufnr, 'textDocument/completion', pos, timeout)
  if not resp then
    fail('completion: ' .. tostring(err))
  else
    result.completion = {}
    for _, r in pairs(resp) do
      local rerr = r.err or r.error
      if rerr then
        fail('completion error: ' .. vim.inspect(rerr))
      end
      local items = r.result and (r.result.items or r.result) or {}
      for _, it in ipairs(items) do
        table.insert(result.completion, { label = it.label, detail = it.detail })
      end
    end
    note('completion')
  end

  -- Hover on the topic name after `python:`.
  local hpos = vim.deepcopy(pos)
  hpos.position.character = col + 3
  resp, err = vim.lsp.buf_request_sync(bufnr, 'textDocument/hover', hpos, timeout)
  if not resp then
    fail('hover: ' .. tostring(err))
  else
    for _, r in pairs(resp) do
      local rerr = r.err or r.error
      if rerr then
        fail('hover error: ' .. vim.inspect(rerr))
      elseif r.result then
        local c = r.result.contents
        result.hover = type(c) == 'table' and (c.value or vim.json.encode(c)) or c
      end
    end
    note('hover')
  end

  -- Diagnostics arrive by publishDiagnostics.
  local got = vim.wait(timeout, function()
    return #vim.diagnostic.get(bufnr) > 0
  end, 50)
  if not got then
    fail('no diagnostics published for the buffer')
  end
  result.diagnostics = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    table.insert(result.diagnostics, {
      lnum = d.lnum,
      col = d.col,
      message = d.message,
      severity = d.severity,
      code = d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code),
      href = d.user_data and d.user_data.lsp and d.user_data.lsp.codeDescription and d.user_data.lsp.codeDescription.href,
    })
  end
  note('diagnostics')

  -- The other files of CTXLS_NVIM_EXTRA (one a line): each must get ctxls
  -- and its diagnostics.
  result.extra = {}
  for f in (os.getenv('CTXLS_NVIM_EXTRA') or ''):gmatch('[^\n]+') do
    vim.cmd('edit ' .. vim.fn.fnameescape(f))
    local b = vim.api.nvim_get_current_buf()
    local got = { file = f, filetype = vim.bo[b].filetype, codes = {} }
    got.attached = vim.wait(timeout, function()
      return #clients(b) > 0
    end, 50)
    vim.wait(timeout, function()
      return #vim.diagnostic.get(b) > 0
    end, 50)
    for _, d in ipairs(vim.diagnostic.get(b)) do
      table.insert(got.codes, d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code) or '')
    end
    table.insert(result.extra, got)
  end
  note('extra')

  vim.lsp.stop_client(client.id)
  vim.wait(2000, function()
    return vim.lsp.client_is_stopped(client.id)
  end, 50)
  finish()
end

vim.api.nvim_create_autocmd('VimEnter', {
  once = true,
  -- The files run() opens fire their own BufRead and FileType.
  nested = true,
  callback = function()
    local ok, err = pcall(run)
    if not ok then
      fail('script error: ' .. tostring(err))
      finish()
    end
  end,
})
