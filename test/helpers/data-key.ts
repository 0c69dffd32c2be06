/** A fixed data key for tests only; production keys come from DATA_ENCRYPTION_KEY. */
export const TEST_DATA_KEY = Buffer.alloc(32, 7).toString('base64')
