// npm test (after npm install): loads extension.js with the real vscode-languageclient and a stand-in for the 'vscode' module
// (which only VS Code provides), and records the language client the extension makes.
const Module = require('module');
const real = Module._load;
const calls = [];
function anything() {
  const f = function () {};
  return new Proxy(f, {
    get(t, k) { if (k === 'prototype') return t.prototype; if (k === Symbol.toPrimitive) return () => 0; return anything(); },
    construct() { return anything(); },
    apply() { return anything(); },
  });
}
const vscode = new Proxy({}, {
  get(t, k) {
    if (k === 'workspace') return { getConfiguration: (s) => ({ get: (key, d) => d }) };
    if (k === 'window') return { showErrorMessage: (m) => calls.push(['error', m]) };
    return anything();
  },
});
Module._load = function (request) {
  if (request === 'vscode') return vscode;
  return real.apply(this, arguments);
};
const lc = require('vscode-languageclient/node');
if (typeof lc.LanguageClient !== 'function' || lc.TransportKind.stdio === undefined) throw new Error('API changed');
lc.LanguageClient = class {
  constructor(id, name, server, client) { calls.push({ id, name, server, client }); }
  start() { calls.push('start'); return Promise.resolve(); }
  stop() { return Promise.resolve(); }
};
const ext = require('../extension.js');
ext.activate({ subscriptions: [] });
console.log(JSON.stringify(calls));
