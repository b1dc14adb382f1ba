// The package's binding, as a gateway loads it.
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)

export const binding = require('../../index.js')
