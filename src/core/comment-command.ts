// Controls on the pull request (issue 16): a comment whose first line is `/fixloop <command>` steers
// the loop for its Task — `off`, `on`, `retry` (one more attempt, as the approve-one label does) or
// `status` (fixloop answers with the loop's state). Only a person with standing may (core/standing.ts,
// the same rule as reviews); anyone else's command is recorded and changes nothing.

export const COMMENT_COMMANDS = ['off', 'on', 'retry', 'status'] as const;
export type CommentCommand = (typeof COMMENT_COMMANDS)[number];

const COMMAND_LINE = /^\/fixloop[ \t]+(off|on|retry|status)[ \t]*$/i;

/** The command a comment body gives on its first non-empty line; null when it gives none. */
export function commentCommand(body: string | null | undefined): CommentCommand | null {
  if (!body) return null;
  const first = body
    .slice(0, 1000) // a command is short: never scan a long body
    .split(/\r?\n/)
    .map((l) => l.trim())
    .find((l) => l !== '');
  const m = first === undefined ? null : COMMAND_LINE.exec(first);
  return m ? (m[1]!.toLowerCase() as CommentCommand) : null;
}
