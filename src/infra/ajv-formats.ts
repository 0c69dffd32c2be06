import ajvFormatsModule, { type FormatsPlugin } from 'ajv-formats'

/** ajv-formats ships CommonJS with its plugin on `default`; this is the plugin itself under ESM. */
export const ajvFormats = ((ajvFormatsModule as unknown as { default?: FormatsPlugin }).default ?? ajvFormatsModule) as FormatsPlugin
