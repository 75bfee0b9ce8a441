// A configured prompt template and the full prompt it renders (SPEC C6, I2; issue 34 split it from
// prompt-frames.ts): the frame's situation and data placed by the template's placeholders, then the
// protocol block, last and verbatim. Pure.
//
// Decisions (each has a test in prompt-frames.test.ts):
// - A configured template adds, it never subtracts. The situation and the data section are each in
//   the prompt exactly once: a template that omits `{{situation}}` gets it in front, one that omits
//   `{{data}}` gets it after. The protocol block always follows the rendered template, verbatim; no
//   placeholder can move or change it.
// - Any `{{…}}` in a template is a placeholder. Unknown names (a typo, `{{protocol}}`) and a second
//   `{{situation}}` or `{{data}}` are rejected, never left visible: `checkPromptTemplate` for config
//   load, and `renderPrompt` throws `PromptTemplateError`. There is no escape for a literal `{{`.
// - Placeholders are filled in one pass, so text inside a value (CI output with `${{ matrix.os }}`)
//   is never expanded again.
import type { PromptFrame } from './prompt-frames.js';
import { protocolBlock } from './prompt-protocol.js';
import { neutralise, repositoryName, stripInvisible } from './untrusted-fence.js';

export const TEMPLATE_PLACEHOLDERS = [
  'situation',
  'data',
  'repository',
  'pullRequest',
  'headSha',
  'attempt',
  'maxAttempts',
] as const;
export type TemplatePlaceholder = (typeof TEMPLATE_PLACEHOLDERS)[number];

export type TemplateProblem =
  | { kind: 'unknown_placeholder'; placeholder: string }
  | { kind: 'repeated_placeholder'; placeholder: 'situation' | 'data' };

const DEFAULT_TEMPLATE = '{{situation}}\n\n{{data}}';

/** A configured template that cannot be rendered (config validation should have caught it). */
export class PromptTemplateError extends Error {
  override readonly name = 'PromptTemplateError';
  constructor(readonly problems: readonly TemplateProblem[]) {
    super(`prompt template rejected: ${problems.map(describeProblem).join('; ')}`);
  }
}

const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g;

/** What is wrong with a configured template; empty when it can be rendered. For config load. */
export function checkPromptTemplate(template: string): TemplateProblem[] {
  const problems: TemplateProblem[] = [];
  const seen = new Map<string, number>();
  for (const m of stripInvisible(template).matchAll(PLACEHOLDER)) {
    const name = m[1] ?? '';
    seen.set(name, (seen.get(name) ?? 0) + 1);
    if (!isPlaceholder(name)) {
      if (seen.get(name) === 1) problems.push({ kind: 'unknown_placeholder', placeholder: name });
    } else if ((name === 'situation' || name === 'data') && seen.get(name) === 2) {
      problems.push({ kind: 'repeated_placeholder', placeholder: name });
    }
  }
  return problems;
}

/**
 * The full prompt: the template (fixloop's default when none is configured) with its placeholders
 * filled, the situation and the data section each exactly once, then the protocol block, last.
 * Throws PromptTemplateError for a template `checkPromptTemplate` rejects.
 */
export function renderPrompt(frame: PromptFrame, template: string = DEFAULT_TEMPLATE): string {
  const problems = checkPromptTemplate(template);
  if (problems.length > 0) throw new PromptTemplateError(problems);
  const values: Record<TemplatePlaceholder, string> = {
    situation: frame.situation,
    data: frame.data,
    repository: repositoryName(frame.pr.repository),
    pullRequest: String(frame.pr.pullRequest),
    headSha: frame.headSha ?? 'unknown',
    attempt: String(frame.attempt),
    maxAttempts: String(frame.maxAttempts),
  };
  // One pass over the template: literal text is neutralised like untrusted text (it cannot forge a
  // marker), placeholder values are put in as they are and never scanned again.
  const source = stripInvisible(template);
  const used = new Set<string>();
  let rendered = '';
  let last = 0;
  for (const m of source.matchAll(PLACEHOLDER)) {
    const name = m[1] as TemplatePlaceholder;
    rendered += neutralise(source.slice(last, m.index), frame.nonce) + values[name];
    used.add(name);
    last = m.index + m[0].length;
  }
  rendered += neutralise(source.slice(last), frame.nonce);
  const parts = [
    used.has('situation') ? '' : frame.situation,
    rendered.trim(),
    used.has('data') ? '' : frame.data,
  ].filter((p) => p !== '');
  return `${parts.join('\n\n')}\n\n${protocolBlock({ ...frame.pr, words: frame.words })}`;
}

function isPlaceholder(name: string): name is TemplatePlaceholder {
  return (TEMPLATE_PLACEHOLDERS as readonly string[]).includes(name);
}

function describeProblem(p: TemplateProblem): string {
  switch (p.kind) {
    case 'unknown_placeholder':
      return `unknown placeholder {{${p.placeholder}}} (known: ${TEMPLATE_PLACEHOLDERS.join(', ')})`;
    case 'repeated_placeholder':
      return `{{${p.placeholder}}} may appear at most once`;
  }
}
