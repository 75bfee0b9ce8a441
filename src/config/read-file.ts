// Read the config file (SPEC M5): `.json` is JSON, `.yaml`/`.yml` is YAML, anything else is
// sniffed (a leading `{` means JSON). Read and syntax errors become a ConfigError naming the file.
import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { ConfigError } from './errors.js';

export function readConfigFile(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ConfigError(path, `cannot read the config file: ${(err as Error).message}`, { cause: err });
  }
  const ext = extname(path).toLowerCase();
  const json = ext === '.json' || (ext !== '.yaml' && ext !== '.yml' && /^\uFEFF?\s*\{/.test(text));
  try {
    const value: unknown = json ? JSON.parse(text.replace(/^\uFEFF/, '')) : parseYaml(text);
    return value ?? {}; // an empty YAML file is an empty config
  } catch (err) {
    throw new ConfigError(path, `not valid ${json ? 'JSON' : 'YAML'}: ${(err as Error).message}`, { cause: err });
  }
}
