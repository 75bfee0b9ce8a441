// What every runner preset checks of an operator's value before it goes into argv (SPEC L1): a value
// after an option is never empty, never read as an option, one line; a count is a positive integer.
// Shared by presets.ts and the presets of the other CLIs (gemini-preset.ts, opencode-preset.ts,
// amp-preset.ts).

/** A value that will follow an option: never empty, never something the CLI could read as an option. */
export function checkValue(name: string, value: string): string {
  if (value === '' || value.startsWith('-') || /[\0\n\r]/.test(value))
    throw new Error(`preset: invalid ${name} ${JSON.stringify(value)}`);
  return value;
}

export function checkRoot(path: string): string {
  if (!path.startsWith('/') || /[\0\n\r]/.test(path))
    throw new Error(`preset: writableRoots entry ${JSON.stringify(path)} must be an absolute path`);
  return path;
}

export function checkCount(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1) throw new Error(`preset: ${name} must be a positive integer`);
  return value;
}
