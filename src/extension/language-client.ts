// The language client library as its own bundle (dist/language-client.js), required by
// server-client.ts when the server first starts: it is most of the extension's code, and loading it
// at activation would not fit the activation budget.
export * from 'vscode-languageclient/node';
