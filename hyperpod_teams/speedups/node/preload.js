// Preloaded into the node process that jsii starts (NODE_OPTIONS=--require) by hyperpod-teams
// (hyperpod_teams/bindings.py, tune_node_process), to make synth pay only for what it uses.
//
// Each rewriter below changes one kind of file of the jsii / cdktf / provider stack as node
// compiles it, and only when the file has exactly the shape it expects; any other file, or
// another version's, is compiled as it is. They apply in turn: one file may take two. None
// changes a byte of the synthesized output (a test synthesizes every example this way and the
// ordinary way, and compares).
"use strict";

const fs = require("fs");
const Module = require("module");

const REWRITERS = [
  require("./lazy_provider_exports"), // provider indexes load a submodule when it is first used
  require("./no_creation_stacks"), // cdktf records no JavaScript stack trace per token
  require("./kernel_in_process"), // the jsii kernel runs here, not behind a relay process
  require("./kernel_assert_messages"), // the kernel formats a type check's message only on failure
  require("./kernel_type_caches"), // the kernel walks a type's hierarchy once, not per object
  require("./kernel_lean_extraction"), // a cold package cache gets no TypeScript declarations
  require("./cdktf_resolve"), // cdktf resolve() does less per value
  require("./cdktf_stack_backend"), // a stack's backend is found without walking the stack
  require("./cdktf_stack_document"), // a stack's document is resolved once, not twice
  require("./cdktf_snake_case"), // cdktf works out the snake_case of each key once
  require("./cdktf_prepared_blocks"), // a document reuses the blocks the preparing pass resolved
];

// With HYPERPOD_TEAMS_DEBUG set, a rewriter that meets its file in a shape it does not expect (a
// jsii or cdktf version other than pyproject's pins) says so in one line; the file runs as published.
const DEBUG = Boolean(process.env.HYPERPOD_TEAMS_DEBUG);

const compile = Module.prototype._compile;
Module.prototype._compile = function compileRewritten(content, filename) {
  let source = content;
  for (const rewriter of REWRITERS) {
    const rewritten = rewriter.rewrite(source, filename, this);
    if (rewritten === null) {
      if (DEBUG && rewriter.targets.some((target) => target.test(filename))) {
        process.stderr.write(
          `hyperpod-teams: node rewriter ${rewriter.name} declined ${filename}: not the shape it expects, runs as published\n`,
        );
      }
      continue;
    }
    source = rewritten;
    // The tests ask which files were rewritten (written at once: jsii may end node by a signal).
    if (process.env.HYPERPOD_TEAMS_NODE_REWRITES_REPORT) {
      fs.appendFileSync(process.env.HYPERPOD_TEAMS_NODE_REWRITES_REPORT, `${rewriter.name}\t${filename}\n`);
    }
  }
  return compile.call(this, source, filename);
};
