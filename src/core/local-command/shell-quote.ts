// Render an argv for a person to paste into a POSIX shell (SPEC J3). Test names and paths come from
// CI logs, which are untrusted: every argument that is not made only of inert characters is put in
// single quotes, inside which the shell expands nothing; an embedded quote becomes '\''.

// Characters with no meaning to sh anywhere in a word (no globbing, expansion, tilde or operators).
const INERT = /^[A-Za-z0-9_@%+=:,./-]+$/;

export function shellQuote(arg: string): string {
  if (INERT.test(arg)) return arg;
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

export function displayCommand(argv: readonly string[]): string {
  return argv.map(shellQuote).join(' ');
}
