// The peers, by name, each loaded on demand (a peer that is not installed
// only leaves its own rows out).
export const PEERS = {
  'quickjs-wasi': () => import('./quickjs-wasi.mjs').then((m) => m.createQuickjsWasi()),
  'quickjs-emscripten': () => import('./quickjs-emscripten.mjs').then((m) => m.createQuickjsEmscripten()),
  'isolated-vm': () => import('./isolated-vm.mjs').then((m) => m.createIsolatedVm()),
  'node:vm': () => import('./node-vm.mjs').then((m) => m.createNodeVm()),
}
