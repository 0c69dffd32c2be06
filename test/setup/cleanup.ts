import { afterAll } from 'vitest'
import { cleanUpFile } from '../helpers/cleanup.ts'

// Registered first in every file, so it runs after the file's own afterAll hooks.
afterAll(cleanUpFile)
