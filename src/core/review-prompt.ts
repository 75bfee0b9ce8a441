// The review seed prompt in the shape dispatch calls today (SPEC F1, C6): the review frame of
// prompt-frames.ts rendered with the default template, kept until dispatch calls the frames.
import { renderPrompt, reviewFrame } from './prompt-frames.js';

export function reviewPrompt(f: {
  repository: string;
  pullRequest: number;
  body: string;
  attemptNumber: number;
  maxAttempts: number;
  nonce: string;
  headSha?: string | null;
  source?: 'review' | 'bot';
  reviewer?: string | null;
}): string {
  return renderPrompt(
    reviewFrame({
      repository: f.repository,
      pullRequest: f.pullRequest,
      headSha: f.headSha ?? null,
      attempt: f.attemptNumber,
      maxAttempts: f.maxAttempts,
      nonce: f.nonce,
      source: f.source ?? 'review',
      reviewer: f.reviewer ?? null,
      body: f.body,
    }),
  );
}
