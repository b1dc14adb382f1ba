// The adversarial corpus (adversarial-fixtures.mjs), in the source itself:
// deeply nested code, and module access the screening refuses.
import assert from 'node:assert/strict'
import { after, describe, test } from 'node:test'

import { assertCompleted, assertFailed, assertServes, closeInstances, instance, MODULE, nestsTooDeeply, TOO_LARGE } from './adversarial-fixtures.mjs'

after(closeInstances)

describe('8. deeply nested sources', () => {
  test('JavaScript and TypeScript, with and without a syntax error: invalid_input before any parser runs', async () => {
    const { codeMode, exec } = instance()
    // The column of the 25001st opening unit ("return" is the first; the
    // first repeated unit is at column 8).
    const nested = [
      ['parens', 'return ' + '('.repeat(100000) + '1' + ')'.repeat(100000), nestsTooDeeply(1, 7 + 25000)],
      ['brackets', 'return ' + '['.repeat(400000), nestsTooDeeply(1, 7 + 25000)],
      ['nots', 'return ' + '!'.repeat(1e6) + '1', nestsTooDeeply(1, 7 + 25000)], // 1000008 bytes: under the cap
      ['braces', '{'.repeat(500000), nestsTooDeeply(1, 25001)],
      ['objects', 'return ' + '{a:'.repeat(150000) + '1' + '}'.repeat(150000), nestsTooDeeply(1, 8 + 12499 * 3 + 2)], // `{` and `:`
      ['templates', 'return ' + '`${'.repeat(100000) + '1' + '}`'.repeat(100000), nestsTooDeeply(1, 8 + 24999 * 3 + 2)], // `{` only
      ['arrows', 'return ' + '()=>'.repeat(150000) + '1', nestsTooDeeply(1, 8 + 8333 * 4)], // `(`, `=`, `>`
      ['keywords', 'return ' + 'void '.repeat(30000) + '1', nestsTooDeeply(1, 8 + 24999 * 5)],
      ['second line', 'const x = 1\nreturn ' + '('.repeat(100000) + '1' + ')'.repeat(100000), nestsTooDeeply(2, 7 + 24998)],
      ['nots over the cap', 'return ' + '!'.repeat(1.1e6) + '1', TOO_LARGE], // the size is checked first
    ]
    for (const language of ['javascript', 'typescript']) {
      for (const [name, code, error] of nested) {
        for (const variant of [code, code + '\n)syntax error(']) {
          assertFailed(await exec({ code: variant, language }), 'invalid_input', error, `${language} ${name}`)
        }
      }
      assertCompleted(await exec({ code: 'return ' + '('.repeat(1000) + '1' + ')'.repeat(1000), language }), 1, `${language}: within the limit`)
    }
    // The 1 MiB cap counts UTF-8 bytes after trimming.
    assertCompleted(await exec('//' + 'é'.repeat(524287)), null)
    assertFailed(await exec('//' + 'é'.repeat(524287) + 'x'), 'invalid_input', TOO_LARGE)
    assertCompleted(await exec('  \n//' + 'x'.repeat(1048574) + '\n  '), null)
    await assertServes(codeMode)
  })
})

describe('11. screening', () => {
  test('module access is refused by syntax; a cell\'s own require runs; the VM holds the rest', async () => {
    const { codeMode, exec } = instance()
    const refused = [
      ['require?.("fs")'],
      ['require`fs`'],
      ['new require("fs")'],
      ['import("fs")'],
      ['await import("fs")'],
      ['return import?.("fs")'],
      ['return (require)("fs")'],
      ['return require\n("fs")'],
      ['try { require("fs") } catch { return "caught" }'],
      ['return import.meta'],
      ['export default 1'],
      ['require("fs")', 'typescript'],
      ['import fs = require("fs")', 'typescript'],
      ['import type { X } from "fs"', 'typescript'],
    ]
    for (const [code, language = 'javascript'] of refused) {
      const result = await exec({ code: `text('ran'); ${code}`, language })
      assertFailed(result, 'invalid_input', MODULE, `${language}: ${code}`)
      assert.deepEqual(result.output, [], `${code}: nothing ran`)
    }
    const own = [
      ['const require = (x) => x; return require("fs")', 'fs'],
      ['function require(x) { return "mine:" + x } return require("fs")', 'mine:fs'],
      ['const f = (require) => require("fs"); return f((x) => x + "!")', 'fs!'],
      ['class require { constructor(x) { this.x = x } } return new require("fs").x', 'fs'],
      ['return typeof require', 'undefined'],
      ['const o = { import: 1, require: 2 }; return o.import + o.require', 3],
    ]
    for (const [code, value] of own) assertCompleted(await exec(code), value, code)
    assertCompleted(await exec({ code: 'const require = (x: string): string => x; return require("fs")', language: 'typescript' }), 'fs')
    // Not screened, and still nothing to reach.
    const held = [
      ['{ const require = (x) => x } return require("fs")', 'ReferenceError: require is not defined at line 1:37'],
      ['return (0, require)("fs")', 'ReferenceError: require is not defined at line 1:12'],
      ['return eval("require(\'fs\')")', 'ReferenceError: require is not defined at line 1:8'],
    ]
    for (const [code, error] of held) assertFailed(await exec(code), 'internal_error', error, code)
    await assertServes(codeMode)
  })

  test('import?.() as a statement is refused with the module-access message', async () => {
    const { codeMode, exec } = instance()
    for (const language of ['javascript', 'typescript']) {
      const result = await exec({ code: 'import?.("fs")', language })
      assertFailed(result, 'invalid_input', MODULE, language)
      assert.deepEqual(result.output, [])
    }
    await assertServes(codeMode)
  })
})
