0 // regression: \p{RGI_Emoji} in a v-flag RegExp ignored a failed allocation and compiled a broken range (assertion opcode < REOP_COUNT in libregexp)
return /^\p{RGI_Emoji}$/v.test('👍🏽')
