// The CI-failure seed prompt in the shape dispatch calls today (SPEC C6, H2). The frames, the
// protocol block, templates and the handling of untrusted text live in prompt-frames.ts; this is
// the CI failure frame rendered with the default template, kept until dispatch calls the frames.
import { ciFailureFrame, renderPrompt } from './prompt-frames.js';

export { fenceData, stripInvisible } from './prompt-frames.js';

export interface PromptFacts {
  repository: string;
  pullRequest: number;
  headSha: string;
  checkName: string;
  conclusion: string | null;
  url: string | null;
  output: string;
  attemptNumber: number;
  maxAttempts: number;
  /** Random per prompt, supplied by the caller (core takes no randomness). */
  nonce: string;
}

export function ciFailurePrompt(f: PromptFacts): string {
  const { attemptNumber, ...rest } = f;
  return renderPrompt(ciFailureFrame({ ...rest, attempt: attemptNumber }));
}
