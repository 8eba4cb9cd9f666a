// Rewriter of the node preload (preload.js): the jsii kernel in the node process Python started.
//
// Why: jsii's launcher (bin/jsii-runtime.js) starts a second node process for the kernel
// (lib/program.js) and relays every request and response between Python's pipes and that child's
// API channel (fd 3) through node streams. A synth exchanges about 80 messages per team, each
// relayed both ways: on two cores the relay took a sixth of a 100-team synth. This runs the kernel
// in the launcher's own process instead, reading requests from stdin and writing responses to
// stdout. What the kernel's JavaScript prints goes to stderr wrapped as the relay wraps it
// ({"stdout"|"stderr": base64}, which jsii's Python side unwraps), so the channel stays clean.
// When the kernel is not of the expected shape (another jsii version), the launcher runs as it is.
"use strict";

const fs = require("fs");
const path = require("path");
const { Readable, Writable } = require("stream");
const { occurrences } = require("./source_text");

const LAUNCHER = /[\\/]bin[\\/]jsii-runtime\.js$/;
const API_CHANNEL = "readFD:3,writeFD:3";
const STDIO_CHANNEL = "readFD:0,writeFD:1";

/** The kernel (program.js) this process runs in place of the launcher's child, once decided. */
let kernelHere = null;

/** The launcher replaced by a call to runKernelHere, or null to leave it as it is. */
function kernelInsteadOfLauncher(filename, module) {
  if (module.id !== ".") return null; // jsii starts the launcher as node's main module
  // The launcher starts its kernel with --preserve-symlinks: the packages the kernel links into
  // its work folder must resolve one copy of cdktf and constructs. Here only the environment can
  // give node that setting (bindings.tune_node_process sets it).
  if (process.env.NODE_PRESERVE_SYMLINKS !== "1") return null;
  const kernel = path.resolve(path.dirname(filename), "..", "lib", "program.js");
  let source;
  try {
    source = fs.readFileSync(kernel, "utf-8");
  } catch {
    return null;
  }
  if (occurrences(source, API_CHANNEL) !== 1) return null;
  return `require(${JSON.stringify(__filename)}).runKernelHere(${JSON.stringify(kernel)});\n`;
}

/** Write all of `text` to a file descriptor, waiting out a full non-blocking pipe. */
function writeAll(fd, text) {
  const buffer = Buffer.from(text);
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (let written = 0; written < buffer.length; ) {
    try {
      written += fs.writeSync(fd, buffer, written);
    } catch (error) {
      if (error.code !== "EAGAIN") throw error;
      Atomics.wait(pause, 0, 0, 5);
    }
  }
}

/** A stream that forwards what is written to it as the relay does: a JSON line on stderr. */
function wrappedOutput(key, fd) {
  const stream = new Writable({
    write(chunk, _encoding, done) {
      writeAll(2, `${JSON.stringify({ [key]: chunk.toString("base64") })}\n`);
      done();
    },
  });
  stream.fd = fd;
  stream.isTTY = false;
  return stream;
}

function runKernelHere(kernel) {
  kernelHere = kernel;
  // The kernel links its packages from jsii's package cache when it sees this flag (else it makes
  // a hard-linked copy of every file); the launcher passes it to its child the same way.
  process.execArgv.push("--preserve-symlinks");
  // stdin and stdout now carry the jsii protocol: no stream may read or write them.
  for (const [name, stream] of [
    ["stdin", Readable.from([])],
    ["stdout", wrappedOutput("stdout", undefined)],
    ["stderr", wrappedOutput("stderr", 2)],
  ]) {
    Object.defineProperty(process, name, { value: stream, configurable: true, enumerable: true, writable: false });
  }
  require(kernel);
}

function rewrite(source, filename, module) {
  if (kernelHere !== null && path.resolve(filename) === kernelHere) {
    return source.replace(API_CHANNEL, STDIO_CHANNEL);
  }
  return LAUNCHER.test(filename) ? kernelInsteadOfLauncher(filename, module) : null;
}

module.exports = { name: "kernel-in-process", targets: [LAUNCHER], rewrite, runKernelHere };
