-- nvim --headless -u NONE -c "luafile nvim.lua" SERVER FILE
--
-- Drives a language server with Neovim's built-in LSP client: opens FILE,
-- starts SERVER on it (initialize), asks for a hover on the first word,
-- cancels a long request (the client sends $/cancelRequest), stops the
-- client (shutdown, exit) and prints one line per step, then quits with
-- status 0, or 1 on a failure.
local server, file = vim.v.argv[#vim.v.argv - 1], vim.v.argv[#vim.v.argv]
local out = {}
local function say(s) table.insert(out, s) end
local function finish(code)
  io.stdout:write(table.concat(out, "\n") .. "\n")
  vim.cmd((code == 0) and "qall!" or "cquit! " .. code)
end

vim.cmd("edit " .. file)
local buf = vim.api.nvim_get_current_buf()
local exited
local id = vim.lsp.start_client({
  name = "langserver",
  cmd = { server },
  root_dir = vim.fn.fnamemodify(file, ":h"),
  on_exit = function(code, signal) exited = { code = code, signal = signal } end,
})
if not id then say("start failed") finish(1) end
vim.lsp.buf_attach_client(buf, id)
local client = vim.lsp.get_client_by_id(id)
if not vim.wait(30000, function() return client.initialized end, 20) then say("no initialize") finish(1) end
say("initialized")

local hover = client.request_sync("textDocument/hover", {
  textDocument = { uri = vim.uri_from_bufnr(buf) },
  position = { line = 0, character = 1 },
}, 30000, buf)
if not hover or hover.err then say("hover failed: " .. vim.inspect(hover)) finish(1) end
local contents = hover.result and hover.result.contents
say("hover: " .. ((type(contents) == "table" and contents.value) or tostring(contents)))

-- A long command, cancelled: the request's callback is not called, and
-- the server answers the cancelled request (-32800), which the client drops.
local ok, rid = client.request("workspace/executeCommand", { command = "wait", arguments = { 5000 } }, function() end, buf)
if not ok then say("executeCommand not sent") finish(1) end
client.cancel_request(rid)
local again = client.request_sync("textDocument/hover", {
  textDocument = { uri = vim.uri_from_bufnr(buf) },
  position = { line = 0, character = 8 },
}, 30000, buf)
if not again or again.err then say("hover after the cancel failed") finish(1) end
say("cancelled, then hover: " .. again.result.contents.value)

-- The client's own shutdown: shutdown, then exit; the server ends.
client.stop()
if not vim.wait(30000, function() return exited ~= nil end, 20) then say("the server did not exit") finish(1) end
say(string.format("exit: %d signal %d", exited.code, exited.signal))
finish(0)
