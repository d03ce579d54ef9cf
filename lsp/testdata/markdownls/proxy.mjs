// Runs Microsoft's markdown language server (vscode-markdown-languageserver)
// over stdio for the ctxls benchmarks, playing the part of VS Code's client
// for the server's custom requests: the server asks its client to parse
// markdown (markdown/parse, answered with markdown-it tokens as VS Code
// does) and to read the file system (markdown/fs/*,
// markdown/findMarkdownFilesInWorkspace). Every other message passes through
// unchanged, so the benchmark's own LSP client sees a plain LSP server.
//
// Usage: node proxy.mjs  (in the workspace root; stdin/stdout carry LSP)

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const MarkdownIt = require('markdown-it');
const md = MarkdownIt({ html: true });

const here = path.dirname(fileURLToPath(import.meta.url));
const serverMain = path.join(here, 'node_modules', 'vscode-markdown-languageserver', 'dist', 'node', 'workerMain.js');
const root = process.cwd();

const child = spawn(process.execPath, [serverMain, '--stdio'], { stdio: ['pipe', 'pipe', 'inherit'] });
child.on('exit', (code) => process.exit(code ?? 1));
process.stdin.on('end', () => child.stdin.end());

function frame(obj) {
  const body = Buffer.from(JSON.stringify(obj), 'utf8');
  return Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`, 'ascii'), body]);
}

// framer calls onFrame with each complete body read from a stream.
function framer(stream, onFrame) {
  let buf = Buffer.alloc(0);
  stream.on('data', (chunk) => {
    buf = Buffer.concat([buf, chunk]);
    for (;;) {
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) return;
      const header = buf.subarray(0, end).toString('ascii');
      const m = /Content-Length:\s*(\d+)/i.exec(header);
      if (!m) {
        buf = buf.subarray(end + 4);
        continue;
      }
      const len = Number(m[1]);
      if (buf.length < end + 4 + len) return;
      const body = buf.subarray(end + 4, end + 4 + len);
      buf = buf.subarray(end + 4 + len);
      onFrame(body);
    }
  });
}

function readText(uri) {
  return fs.readFileSync(fileURLToPath(uri), 'utf8');
}

function markdownFiles(dir, out) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    if (e.name === 'node_modules' || e.name.startsWith('.')) continue;
    const p = path.join(dir, e.name);
    if (e.isDirectory()) markdownFiles(p, out);
    else if (e.name.endsWith('.md')) out.push(pathToFileURL(p).toString());
  }
  return out;
}

const handlers = {
  'markdown/parse': (p) => md.parse(p.text ?? readText(p.uri), {}),
  'markdown/fs/readFile': (p) => Array.from(fs.readFileSync(fileURLToPath(p.uri))),
  'markdown/fs/readDirectory': (p) =>
    fs.readdirSync(fileURLToPath(p.uri), { withFileTypes: true }).map((e) => [e.name, { isDirectory: e.isDirectory() }]),
  'markdown/fs/stat': (p) => {
    try {
      return { isDirectory: fs.statSync(fileURLToPath(p.uri)).isDirectory() };
    } catch {
      return null;
    }
  },
  'markdown/findMarkdownFilesInWorkspace': () => markdownFiles(root, []),
  'markdown/fs/watcher/create': () => null,
  'markdown/fs/watcher/delete': () => null,
};

framer(process.stdin, (body) => {
  child.stdin.write(Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`, 'ascii'), body]));
});

framer(child.stdout, (body) => {
  // Only the server's requests to its client are parsed; everything else,
  // responses above all, passes through as bytes, so the hop costs little.
  let msg = null;
  if (body.includes('"markdown/')) {
    try {
      msg = JSON.parse(body.toString('utf8'));
    } catch {
      msg = null;
    }
  }
  const h = msg && msg.id !== undefined && msg.method && handlers[msg.method];
  if (!h) {
    process.stdout.write(Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`, 'ascii'), body]));
    return;
  }
  let reply;
  try {
    reply = { jsonrpc: '2.0', id: msg.id, result: h(msg.params ?? {}) ?? null };
  } catch (err) {
    reply = { jsonrpc: '2.0', id: msg.id, error: { code: -32603, message: String(err && err.message) } };
  }
  child.stdin.write(frame(reply));
});
