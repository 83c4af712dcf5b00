// The footer threads' FileStats codec at its old module path, kept for importers outside
// adapters/formats (bench/, test/unit/convert): it lives in threads/stats-codec.ts.
export { decodeFileStats, encodeFileStats } from './threads/stats-codec';
