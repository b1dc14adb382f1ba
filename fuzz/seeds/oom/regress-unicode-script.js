0 // regression: \p{Script=...} and \p{Script_Extensions=...} jumped back to their own error label out of memory (a loop that the build turned into a call through NULL, SIGSEGV)
return [/\p{Script=Greek}+/u.exec('abc αβγ')[0], /\p{scx=Hira}/u.test('ー'), /\p{sc=Latn}/v.test('a')]
