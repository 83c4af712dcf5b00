// YAML files a user names (the config, plan.lineage): read through the bounded reader
// (adapters/input/bounded-file.ts: regular files only, size-capped, non-blocking open) and parsed
// with the YAML library's alias-expansion bound, every failure coded with the caller's code so the
// CLI exits with the documented code instead of hanging or crashing.
import { parse, YAMLParseError } from 'yaml';
import type { ErrorCode } from '../../core/errors';
import { MigrationError } from '../../core/errors';
import { readBoundedText } from '../../adapters/input/bounded-file';

/** Aliases one document may expand (the library's own bound; a billion-laughs file trips it). */
export const MAX_YAML_ALIASES = 100;

export interface YamlInput {
  readonly what: string;
  readonly code: ErrorCode;
  readonly maxBytes: number;
}

/** The parsed document of `file` (undefined/null for an empty one: the caller decides). */
export function readYamlFile(file: string, o: YamlInput): unknown {
  const text = readBoundedText(file, o);
  try {
    return parse(text, { maxAliasCount: MAX_YAML_ALIASES });
  } catch (e) {
    if (e instanceof YAMLParseError) {
      const at = e.linePos?.[0];
      throw new MigrationError(o.code, `${file}${at ? `:${at.line}:${at.col}` : ''}: not valid YAML: ${e.message.split('\n')[0] ?? ''}`, {
        file,
        paths: ['(root)'],
      });
    }
    // The library throws a ReferenceError when aliases expand past maxAliasCount (an alias bomb).
    if (e instanceof ReferenceError && /alias/i.test(e.message))
      throw new MigrationError(
        o.code,
        `${file}: its YAML aliases expand past ${MAX_YAML_ALIASES} (${e.message}); write the values out or use fewer aliases`,
        { file, paths: ['(root)'] },
      );
    throw e;
  }
}
