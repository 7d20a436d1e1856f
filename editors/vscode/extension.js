// The rulespec extension for VS Code: the language (.rules files), the TextMate grammar
// (syntaxes/rulespec.tmLanguage.json, copied from ../rulespec.tmLanguage.json by `npm install`),
// and a client of the language server `rulespec lsp`, started over stdio.
'use strict';

const vscode = require('vscode');
const { LanguageClient, TransportKind } = require('vscode-languageclient/node');

let client;

function activate(context) {
  const config = vscode.workspace.getConfiguration('rulespec');
  const command = config.get('server.command', 'rulespec');
  const args = config.get('server.args', ['lsp']);
  // TransportKind.stdio: the client adds --stdio to the arguments, which `rulespec lsp` accepts
  const serverOptions = {
    run: { command, args, transport: TransportKind.stdio },
    debug: { command, args, transport: TransportKind.stdio },
  };
  const clientOptions = {
    documentSelector: [
      { scheme: 'file', language: 'rulespec' },
      { scheme: 'untitled', language: 'rulespec' },
    ],
  };
  client = new LanguageClient('rulespec', 'rulespec language server', serverOptions, clientOptions);
  client.start().catch((err) => {
    vscode.window.showErrorMessage(
      `Could not start "${command} ${args.join(' ')}": ${err.message}. ` +
      'Install rulespec with its lsp extra (pip install "rulespec[lsp]") or set rulespec.server.command.');
  });
  context.subscriptions.push({ dispose: () => (client ? client.stop() : undefined) });
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
